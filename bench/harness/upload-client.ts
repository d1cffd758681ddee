import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { text } from 'node:stream/consumers';

const MIB = 1024 * 1024;
/** Incompressible bytes with no known file signature, repeated: the client costs no disk reads and little CPU. */
const BLOCK = randomBytes(MIB);
BLOCK.write('BENCH', 0);

/** The bytes `uploadFile` sends for `mib` MiB, as one buffer (for clients that take a whole file, such as tus-js-client). */
export function benchBytes(mib: number): Buffer {
  return Buffer.concat(
    Array.from({ length: mib }, () => BLOCK),
    mib * MIB,
  );
}

export interface UploadOutcome {
  readonly status: number;
  readonly body: string;
  readonly seconds: number;
  /** Decimal megabytes of file content per second. */
  readonly mbPerSecond: number;
}

/** POSTs one multipart/form-data upload of `mib` MiB (a `label` field and a `file` part), streamed. */
export async function uploadFile(url: string, token: string, mib: number): Promise<UploadOutcome> {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="label"\r\n\r\nbench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const parts = function* () {
    yield head;
    for (let i = 0; i < mib; i++) yield BLOCK;
    yield tail;
  };
  const started = process.hrtime.bigint();
  const req = request(`${url}/v1/assets/upload`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': head.length + mib * MIB + tail.length,
    },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    // A reply that breaks off rejects the call instead of leaving it pending.
    req.once('response', (res) => void text(res).then((body) => resolve({ status: res.statusCode ?? 0, body }), reject));
    req.once('error', reject);
  });
  // The server may answer (e.g. 413) before it has read everything; the response decides.
  await Promise.all([pipeline(Readable.from(parts(), { objectMode: false }), req).catch(() => undefined), response]);
  const { status, body } = await response;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { status, body, seconds, mbPerSecond: (mib * MIB) / 1e6 / seconds };
}
