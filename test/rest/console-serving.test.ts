// The gateway serves the built console at /console/ and the API reference at /docs (CONTRACT.md, "Console and API
// reference"): the console's security headers on every response, hashed assets cached for good and index.html never,
// deep links answered by the app, CONSOLE=off; /docs renders /v1/openapi.json with Swagger UI from our own package.
import test from 'ava';
import { readdir } from 'node:fs/promises';
import { consoleRoot } from '@switchyard/console';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
let off: Stack;
test.before(async () => {
  [stack, off] = await Promise.all([startStack({ CDN_URL: 'http://cdn.example.test/files' }), startStack({ CONSOLE: 'off' })]);
});
test.after.always(async () => Promise.all([stack?.stop(), off?.stop()]));

function cspOf(response: Response): Map<string, string> {
  const directives = new Map<string, string>();
  for (const directive of (response.headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...values] = directive.trim().split(/\s+/);
    if (name) directives.set(name, values.join(' '));
  }
  return directives;
}

test("GET /console/ is the app with the contract's security headers, never cached; /console redirects there", async (t) => {
  const response = await fetch(`${stack.url}/console/`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/html/);
  t.is(response.headers.get('cache-control'), 'no-cache');
  t.is(response.headers.get('referrer-policy'), 'no-referrer');
  const csp = cspOf(response);
  t.is(csp.get('script-src'), "'self'");
  t.is(csp.get('object-src'), "'none'");
  t.is(csp.get('frame-ancestors'), "'none'");
  t.is(csp.get('base-uri'), "'self'");
  t.regex(csp.get('img-src') ?? '', /http:\/\/cdn\.example\.test(\s|$)/, 'images from the CDN origin');
  t.false((response.headers.get('content-security-policy') ?? '').includes('unsafe-'), 'nothing unsafe-*');
  const html = await response.text();
  t.regex(html, /<script type="module"[^>]* src="\/console\/assets\/[^"]+\.js"/);
  t.notRegex(html, /<script>|<style>|style="/, 'no inline script or style for the CSP to refuse');

  const redirect = await fetch(`${stack.url}/console`, { redirect: 'manual' });
  t.is(redirect.status, 308);
  t.is(redirect.headers.get('location'), '/console/');
});

test('hashed assets are cached immutably with the same headers; a deep link is the app; a missing asset is not', async (t) => {
  const assets = (await readdir(`${consoleRoot}assets`)).filter((name) => !/\.(br|gz)$/.test(name));
  t.true(assets.length > 0);
  const script = assets.find((name) => name.endsWith('.js'))!;
  const asset = await fetch(`${stack.url}/console/assets/${script}`, { headers: { 'accept-encoding': 'br, gzip' } });
  t.is(asset.status, 200);
  t.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.is(cspOf(asset).get('script-src'), "'self'");
  t.truthy(asset.headers.get('etag'));
  t.is(asset.headers.get('content-encoding'), 'br', 'sent precompressed to a client that takes brotli');
  t.regex(asset.headers.get('vary') ?? '', /accept-encoding/i);
  const plain = await fetch(`${stack.url}/console/assets/${script}`, { headers: { 'accept-encoding': 'identity' } });
  t.is(plain.headers.get('content-encoding'), null, 'and as it is to one that takes nothing else');

  const deep = await fetch(`${stack.url}/console/routes?page=2`);
  t.is(deep.status, 200);
  t.is(deep.headers.get('cache-control'), 'no-cache');
  t.is(await deep.text(), await (await fetch(`${stack.url}/console/`)).text());

  const stale = await fetch(`${stack.url}/console/assets/index-0ld8uild.js`);
  t.is(stale.status, 404, 'an asset of another build is missing, not the app');
  t.like(await stale.json(), { code: 'not_found' });
  t.is((await fetch(`${stack.url}/console/.vite/manifest.json`)).status, 200, 'a dot path is the app, never a file');
  t.regex(await (await fetch(`${stack.url}/console/.vite/manifest.json`)).text(), /<!doctype html>/i);
});

test('CONSOLE=off serves no console, and the API is unchanged', async (t) => {
  t.is((await fetch(`${off.url}/console/`)).status, 404);
  t.is((await fetch(`${off.url}/console/assets/x.js`)).status, 404);
  t.like(await (await fetch(`${off.url}/console/`)).json(), { code: 'not_found' });
  t.is((await fetch(`${off.url}/v1/openapi.json`)).status, 200);
});

test('GET /docs renders /v1/openapi.json with Swagger UI served from this gateway, nothing from a CDN', async (t) => {
  const page = await fetch(`${stack.url}/docs`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  t.true(sources.length >= 3);
  for (const source of sources) t.true(source.startsWith('/'), `${source} is local`);
  t.is(cspOf(page).get('script-src'), "'self'");
  for (const source of sources) t.is((await fetch(`${stack.url}${source}`)).status, 200, source);
  t.regex(await (await fetch(`${stack.url}/docs/init.js`)).text(), /\/v1\/openapi\.json/);
  t.is((await fetch(`${stack.url}/docs/assets/index.html`)).status, 404, 'only the renderer is served, not the package');
});
