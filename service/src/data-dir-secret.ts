import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Secrets shorter than this are refused: both their uses (HS256, HMAC-SHA256) want the hash's length. */
export const MIN_DATA_DIR_SECRET_LENGTH = 32;

/**
 * The secret kept in `dataDir/name`, generated on first use. Every process
 * started with the same DATA_DIR (service, gateway, token CLI) gets the same one.
 */
export async function dataDirSecret(dataDir: string, name: string): Promise<string> {
  const file = join(dataDir, name);
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
  if (secret.length < MIN_DATA_DIR_SECRET_LENGTH) throw new Error(`${file} holds no usable secret; delete it to have a new one generated`);
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
