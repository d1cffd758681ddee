// `npx tsx scripts/console-screenshots.ts`: starts the all-in-one server (compiled, as `npm start`; run `npm run
// build` first) on a fresh data dir, seeds a workspace with images, documents, media and routes, and takes the
// README's screenshots of the console in headless Chromium into docs/images/. Re-run after a change to the console.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { chromium, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'docs/images');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-screenshots-'));
const server = spawn(process.execPath, ['cli/dist/bin.js', 'start'], {
  cwd: ROOT,
  env: { ...process.env, HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', METRICS_PORT: 'off', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /REST gateway\s+(http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    server.once('exit', (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
  const token = await mintToken();
  await seed(url, token);

  await mkdir(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 }, deviceScaleFactor: 1 });
  await page.goto(`${url}/console/`);
  await shot(page, 'console-sign-in');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'harbour.jpg' }).waitFor();
  await page.waitForLoadState('networkidle');
  await shot(page, 'console-assets');
  await page.getByRole('button', { name: 'harbour.jpg' }).click();
  await page.getByRole('dialog').waitFor();
  await page.waitForLoadState('networkidle');
  await shot(page, 'console-asset-detail');
  await page.keyboard.press('Escape');
  await page.getByRole('link', { name: 'Routes' }).click();
  await page.getByLabel('Test method').selectOption('GET');
  await page.getByLabel('Test path').fill('/users/42/avatar');
  await page.getByRole('status').getByText('getAvatar').waitFor();
  await shot(page, 'console-routes');
  await page.getByRole('link', { name: 'Workspace' }).click();
  await page.getByRole('heading', { name: 'Workspace' }).waitFor();
  await page.waitForLoadState('networkidle');
  await shot(page, 'console-workspace');
  await browser.close();
  console.log(`screenshots in ${OUT}`);
} finally {
  server.kill('SIGTERM');
  await rm(dataDir, { recursive: true, force: true });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`) });
}

/** A token from `switchyard token`, as a person would get one. */
async function mintToken(): Promise<string> {
  const child = spawn(process.execPath, ['cli/dist/bin.js', 'token', '--workspace', 'demo', '--subject', 'ada'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return output.trim();
}

/** Pictures drawn here (no stock photos in the repository), the test fixtures for other kinds, and a route table. */
async function seed(url: string, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const picture = (width: number, height: number, from: string, to: string) =>
    sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width * 0.7}" cy="${height * 0.35}" r="${height * 0.18}" fill="#fff8" /></svg>`,
      ),
    )
      .jpeg()
      .toBuffer();
  const fixture = (name: string) => readFile(join(ROOT, 'test/fixtures', name));
  const files: [string, Buffer, string, string][] = [
    ['harbour.jpg', await picture(1600, 1000, '#0b4f6c', '#01baef'), 'photos', 'public'],
    ['sunset.jpg', await picture(1200, 800, '#f46036', '#2e294e'), 'photos', 'public'],
    ['forest.jpg', await picture(1000, 1000, '#1b998b', '#2d3047'), 'photos', 'private'],
    ['brochure.pdf', await fixture('document.pdf'), 'documents', 'public'],
    ['jingle.mp3', await fixture('sound.mp3'), 'audio', 'public'],
    ['teaser.mp4', await fixture('clip.mp4'), 'video', 'private'],
    ['notes.txt', await fixture('notes.txt'), '', 'private'],
  ];
  for (const [name, bytes, label, visibility] of files.reverse()) {
    const form = new FormData();
    if (label) form.set('label', label);
    form.set('visibility', visibility);
    form.set('file', new Blob([new Uint8Array(bytes)]), name);
    const response = await fetch(`${url}/v1/assets/upload`, { method: 'POST', headers: auth, body: form });
    if (response.status !== 201) throw new Error(`upload ${name}: ${response.status} ${await response.text()}`);
  }
  const routes = [
    { method: 'GET', path: '/users/:id', middleware: ['auth'], handler: 'getUser' },
    { method: 'GET', path: '/users/:id/avatar', middleware: ['auth', 'cache'], handler: 'getAvatar' },
    { method: 'POST', path: '/users', middleware: ['auth', 'audit'], handler: 'createUser' },
    { method: 'DELETE', path: '/users/:id', middleware: ['auth', 'admin', 'audit'], handler: 'deleteUser' },
    { method: 'GET', path: '/health', middleware: [], handler: 'health' },
  ];
  for (const route of routes) {
    const response = await fetch(`${url}/v1/routing`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(route),
    });
    if (response.status !== 201) throw new Error(`route ${route.path}: ${response.status} ${await response.text()}`);
  }
}
