import { getDocument, PDFDataRangeTransport, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';
// pdf.js's parser, loaded with this module rather than at the first document: it sets
// globalThis.pdfjsWorker, which pdf.js then runs in this thread (no worker of its own).
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import type { BlockReader } from './block-reader.js';
import type { MediaFacts } from './media-facts.js';
import type { ProbeJob } from './probe-protocol.js';

/**
 * Small range requests: finding the last page walks the page tree, and a
 * flat one of many pages costs a request per page; at 16 KiB, a
 * thousand-page file stays well inside the byte bound.
 */
const RANGE_CHUNK_BYTES = 16 * 1024;

/** pdf.js asks for ranges of the stored file; they are read through the BlockReader, nothing else. */
class ReaderTransport extends PDFDataRangeTransport {
  readonly #reader: BlockReader;
  readonly #fail: (error: unknown) => void;

  constructor(reader: BlockReader, head: Uint8Array, fail: (error: unknown) => void) {
    super(reader.size, head);
    this.#reader = reader;
    this.#fail = fail;
  }

  override requestDataRange(begin: number, end: number): void {
    // A refused read (past the byte bound) ends the job rather than leaving pdf.js waiting for it.
    this.#reader.read(begin, end - begin).then((bytes) => this.onDataRange(begin, bytes), this.#fail);
  }
}

/**
 * The page count of a PDF with pdf.js (Mozilla's parser, as in Firefox): it
 * follows the cross-reference sections from the end of the file, refuses
 * loops among them, and rebuilds a broken table by scanning, all through
 * ranges of the stored file. No fonts, no scripts, no rendering.
 */
export async function probePdf(reader: BlockReader, job: ProbeJob): Promise<MediaFacts> {
  const initial = job.head.subarray(0, Math.min(job.head.length, reader.size));
  let fail: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const task = getDocument({
    range: new ReaderTransport(reader, initial, fail),
    length: reader.size,
    rangeChunkSize: RANGE_CHUNK_BYTES,
    disableAutoFetch: true,
    disableStream: true,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const document = await Promise.race([task.promise, failed]);
    return { pages: document.numPages };
  } finally {
    await task.destroy();
  }
}
