import test from 'ava';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUTH_SECRET_FILE, resolveAuthSecret } from './auth-secret.js';

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-secret-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('AUTH_SECRET wins and nothing is written', async (t) => {
  await withDir(async (dir) => {
    const secret = 's'.repeat(40);
    t.is(await resolveAuthSecret({ dataDir: dir, auth: { kind: 'hmac', secret } }), secret);
    t.deepEqual(await readdir(dir), []);
  });
});

test('without AUTH_SECRET a secret is generated once, kept private and reused', async (t) => {
  await withDir(async (dir) => {
    const dataDir = join(dir, 'nested', 'data');
    const first = await resolveAuthSecret({ dataDir, auth: { kind: 'hmac' } });
    t.regex(first, /^[A-Za-z0-9_-]{43}$/);
    const file = join(dataDir, AUTH_SECRET_FILE);
    t.is((await stat(file)).mode & 0o777, 0o600);
    t.is((await readFile(file, 'utf8')).trim(), first);
    t.is(await resolveAuthSecret({ dataDir, auth: { kind: 'hmac' } }), first);
    t.deepEqual(await readdir(dataDir), [AUTH_SECRET_FILE], 'no temp file left behind');
  });
});

test('concurrent first uses agree on one secret', async (t) => {
  await withDir(async (dir) => {
    const secrets = await Promise.all(Array.from({ length: 20 }, () => resolveAuthSecret({ dataDir: dir, auth: { kind: 'hmac' } })));
    t.is(new Set(secrets).size, 1);
    t.deepEqual(await readdir(dir), [AUTH_SECRET_FILE]);
  });
});

test('an existing secret file is used as is', async (t) => {
  await withDir(async (dir) => {
    const secret = 'k'.repeat(43);
    await writeFile(join(dir, AUTH_SECRET_FILE), `${secret}\n`, { mode: 0o600 });
    t.is(await resolveAuthSecret({ dataDir: dir, auth: { kind: 'hmac' } }), secret);
  });
});

test('an unusable secret file is refused, not silently replaced', async (t) => {
  await withDir(async (dir) => {
    await writeFile(join(dir, AUTH_SECRET_FILE), '\n');
    await t.throwsAsync(resolveAuthSecret({ dataDir: dir, auth: { kind: 'hmac' } }), { message: /holds no usable secret/ });
  });
});

test('with JWKS there is no secret to resolve', async (t) => {
  await t.throwsAsync(resolveAuthSecret({ dataDir: tmpdir(), auth: { kind: 'jwks', url: 'https://idp/jwks' } }), {
    message: /AUTH_JWKS_URL/,
  });
});
