// The probe worker: one file at a time, read through ranges the server
// fetches (and bounds), described by the parser of its kind. It runs in its
// own thread with its own heap limit, so the server can end it at a deadline
// whatever a parser is doing (probe-pool.ts).
import { parentPort } from 'node:worker_threads';
import { BlockReader } from './block-reader.js';
import type { MediaFacts } from './media-facts.js';
import type { FromWorker, ProbeJob, ToWorker } from './probe-protocol.js';

// Parsers report what they make of hostile files on the console; that is no news for the server's log.
for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) console[method] = () => undefined;

const port = parentPort!;
const reads = new Map<number, { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void }>();
let nextRead = 0;

function send(message: FromWorker): void {
  port.postMessage(message);
}

function fetchRange(start: number, length: number): Promise<Uint8Array> {
  const read = nextRead++;
  return new Promise((resolve, reject) => {
    reads.set(read, { resolve, reject });
    send({ read, start, length });
  });
}

type Probe = (reader: BlockReader, job: ProbeJob) => Promise<MediaFacts>;

/** Each parser is loaded on first use, so a kind whose optional dependency is missing fails alone. */
async function load(kind: ProbeJob['kind']): Promise<Probe> {
  if (kind === 'mp4') return (await import('./probe-mp4.js')).probeMp4;
  if (kind === 'pdf') return (await import('./probe-pdf.js')).probePdf;
  return (await import('./probe-music.js')).probeMusic;
}

async function describe(job: ProbeJob): Promise<MediaFacts> {
  const probe = await load(job.kind);
  // The deadline is the parser's: loading it (pdf.js is large) depends on no file.
  send({ loaded: true });
  return probe(new BlockReader(job.head, job.size, fetchRange), job);
}

port.on('message', (message: ToWorker) => {
  if ('job' in message) {
    describe(message.job).then(
      (facts) => send({ facts }),
      (error: unknown) => send({ failed: error instanceof Error ? error.message : String(error) }),
    );
    return;
  }
  const pending = reads.get(message.read);
  reads.delete(message.read);
  if ('bytes' in message) pending?.resolve(message.bytes);
  else pending?.reject(new Error(message.error));
});
