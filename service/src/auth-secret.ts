import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import type { ServiceConfig } from './config.js';

export const AUTH_SECRET_FILE = 'auth-secret';

/**
 * The HS256 key of this deployment: AUTH_SECRET when set, else the secret kept
 * in `DATA_DIR/auth-secret`, generated on first use. Every process started with
 * the same DATA_DIR (service, gateway, token CLI) gets the same secret.
 */
export async function resolveAuthSecret(config: Pick<ServiceConfig, 'auth' | 'dataDir'>): Promise<string> {
  if (config.auth.kind !== 'hmac') {
    throw new SwitchyardError('invalid_argument', 'tokens are verified against AUTH_JWKS_URL; there is no local secret');
  }
  if (config.auth.secret !== undefined) return config.auth.secret;
  const file = join(config.dataDir, AUTH_SECRET_FILE);
  return (await readSecret(file)) ?? (await createSecret(file));
}

async function readSecret(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = text.trim();
  if (secret.length < 32) throw new Error(`${file} holds no usable secret; delete it to have a new one generated`);
  return secret;
}

/**
 * Writes a fresh secret to a private temp file, then links it into place:
 * `link` fails when the name exists, so the file appears complete or not at
 * all, and when two processes race, the loser reads the winner's secret.
 */
async function createSecret(file: string): Promise<string> {
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = await readSecret(file);
    if (theirs === undefined) throw error;
    return theirs;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
