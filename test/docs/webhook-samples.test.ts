// docs/webhooks.md's samples, run: the payload printed under "Events and payloads" has the shape
// of a real delivery, and the Node verifier printed under "Signatures (Standard Webhooks 1.0)",
// taken from the page as it is, accepts real deliveries and refuses altered or replayed ones. The
// Express, Fastify and Hono receivers printed under "Receivers in Node" run as printed, each in a
// process of its own on 127.0.0.1, and verify real deliveries with the `standardwebhooks` package.
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { createRestClient } from '@switchyard/client';
import { eventually } from '@switchyard/core/testing';
import { ROOT } from '../support/cli.js';
import { freePort } from '../support/free-port.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';

const PAGE = 'docs/webhooks.md';
let stack: Stack;

test.before(async () => {
  stack = await startStack();
});

test.after.always(async () => {
  await stack?.stop();
});

/** The fenced blocks of `lang` under the `## heading` of the page. */
async function blocksUnder(heading: string, lang: string): Promise<string[]> {
  const text = await readFile(join(ROOT, PAGE), 'utf8');
  const at = text.indexOf(`\n## ${heading}\n`);
  if (at === -1) throw new Error(`${PAGE} has no heading "${heading}"`);
  const rest = text.slice(at + heading.length + 5);
  const end = rest.search(/\n#{1,2} /);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((block) => block[1]!);
}

/** Every key path of a JSON value, `data.asset.id` style, arrays and leaves as their type. */
function shapeOf(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`${path}: ${Array.isArray(value) ? 'array' : typeof value}`];
  return Object.entries(value).flatMap(([key, inner]) => shapeOf(inner, path ? `${path}.${key}` : key));
}

test('the verifier and the payload printed in the page hold for real deliveries', async (t) => {
  const [payload] = await blocksUnder('Events and payloads', 'json');
  const [verifier] = await blocksUnder('Signatures (Standard Webhooks 1.0)', 'js');
  t.truthy(payload);
  t.truthy(verifier);
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-webhook-doc-'));
  const receiver = await startReceiver();
  try {
    await writeFile(join(dir, 'verify.mjs'), verifier!);
    const { verified } = (await import(pathToFileURL(join(dir, 'verify.mjs')).href)) as {
      verified: (secret: string, headers: Record<string, unknown>, rawBody: string) => boolean;
    };
    const client = createRestClient({ baseUrl: stack.url, token: await stack.token(freshWorkspace()) });
    const endpoint = await client.createWebhook({ url: receiver.url, events: ['asset.*'] });
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e0a3a3e10000000049454e44ae426082',
      'hex',
    );
    const asset = await client.uploadAsset(new Blob([png], { type: 'image/png' }), { filename: 'dot.png' });
    await client.updateAsset(asset.id, { name: 'renamed.png' });
    await eventually(() => receiver.received.length >= 2, { timeout: 30_000, message: 'two deliveries' });
    const updated = receiver.received.find((request) => (JSON.parse(request.body) as { type: string }).type === 'asset.updated')!;

    t.deepEqual(shapeOf(JSON.parse(payload!)).sort(), shapeOf(JSON.parse(updated.body)).sort(), 'the printed payload has the real shape');
    for (const request of receiver.received) t.true(verified(endpoint.secret, request.headers, request.body));
    t.false(verified(endpoint.secret, updated.headers, updated.body.replace('renamed', 'RENAMED')), 'an altered body');
    t.false(verified(endpoint.secret, updated.headers, JSON.stringify(JSON.parse(updated.body), null, 1)), 'a re-serialized body');
    t.false(verified(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, updated.headers, updated.body), 'another secret');
    t.false(verified(endpoint.secret, { ...updated.headers, 'webhook-timestamp': '1614265330' }, updated.body), 'an old timestamp');
  } finally {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
});

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e0a3a3e10000000049454e44ae426082',
  'hex',
);

test('the Express, Fastify and Hono receivers run as printed and verify every delivery with standardwebhooks', async (t) => {
  const receivers = await blocksUnder('Receivers in Node', 'js');
  t.deepEqual(
    receivers.map((code) => /^import (\w+|\{ \w+ \}) from '([\w@/-]+)';/.exec(code)?.[2]),
    ['express', 'fastify', '@hono/node-server'],
    'Express, Fastify and Hono, in that order',
  );
  // Under the repository's node_modules, so the samples' bare imports resolve to its packages.
  const cache = join(ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'switchyard-webhook-receivers-'));
  try {
    for (const [i, code] of receivers.entries()) {
      const name = ['express', 'fastify', 'hono'][i]!;
      const port = await freePort();
      const client = createRestClient({ baseUrl: stack.url, token: await stack.token(freshWorkspace(name)) });
      const endpoint = await client.createWebhook({ url: `http://127.0.0.1:${port}/hooks`, events: ['*'] });
      const file = join(dir, `${name}.mjs`);
      await writeFile(file, code);
      const child = spawn(process.execPath, [file], {
        cwd: dir,
        env: { ...process.env, WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        await eventually(() => output.includes(`${name} receiver listening`), { timeout: 30_000, message: `${name}: listening` });

        const asset = await client.uploadAsset(new Blob([PNG], { type: 'image/png' }), { filename: 'dot.png' });
        await client.updateAsset(asset.id, { name: 'renamed.png' });
        await client.createRoute({ method: 'GET', path: `/${name}/:id`, handler: 'show' });
        const printed = () => [...output.matchAll(/^(msg_\S+) (\S+) revision (\d+)$/gm)].map((m) => ({ id: m[1]!, type: m[2]! }));
        await eventually(() => printed().length >= 3, { timeout: 30_000, message: `${name}: three verified deliveries printed` });
        const { deliveries } = await eventually(
          async () => {
            const page = await client.listDeliveries(endpoint.id);
            return page.deliveries.length === 3 && page.deliveries.every((delivery) => delivery.status === 'succeeded') && page;
          },
          { timeout: 30_000, message: `${name}: every delivery answered 2xx` },
        );
        t.deepEqual(
          printed(),
          [...deliveries].reverse().map((delivery) => ({ id: delivery.messageId, type: delivery.eventType })),
          `${name}: each delivery verified and printed once, in commit order`,
        );
        t.deepEqual(
          printed().map((event) => event.type),
          ['asset.created', 'asset.updated', 'route.created'],
        );

        // A body altered after signing, and a signature from another secret, are refused.
        const body = JSON.stringify({ type: 'asset.deleted', timestamp: new Date().toISOString(), data: { id: 'as_x' } });
        const signed = (secret: string, payload: string) => {
          const at = new Date();
          return {
            'content-type': 'application/json',
            'webhook-id': 'msg_forged',
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(secret).sign('msg_forged', at, payload),
          };
        };
        const post = async (headers: Record<string, string>, payload: string) =>
          (await fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', headers, body: payload })).status;
        t.is(await post(signed(endpoint.secret, body), body.replace('as_x', 'as_y')), 400, `${name}: an altered body`);
        t.is(await post(signed(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, body), body), 400, `${name}: another secret`);
        t.is(await post(signed(endpoint.secret, body), body), 204, `${name}: the same request, signed with the secret`);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
