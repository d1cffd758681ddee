import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { ApiError, contentTooLarge, invalidRequest } from '../http/api-error.js';

/** Room for part headers, boundaries and small fields on top of the file itself. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** Text fields are short (a label is at most 200 characters); anything longer is refused before it reaches the service. */
export const FIELD_MAX_BYTES = 4096;

export interface FormLimits {
  /** Largest file accepted (MAX_UPLOAD_BYTES). */
  readonly maxFileBytes: number;
  /** Names of the text fields the form may carry, each at most once. */
  readonly fieldNames: readonly string[];
}

export interface FilePart {
  /** The client's file name (a hint); empty when none was given. */
  readonly filename: string;
  /** The part's declared Content-Type (a hint). */
  readonly declaredType: string;
  /** Text fields that came before the file part. */
  readonly fieldsBefore: ReadonlyMap<string, string>;
}

/**
 * A multipart/form-data request with exactly one file part named `file`, read
 * as a stream: the file's bytes are never held beyond the parser's small
 * buffer, and reading pauses while the consumer of `bytes()` is busy, so a slow
 * service slows the client instead of filling memory. Text fields may come
 * before or after the file. The first problem found wins and is the reason
 * every pending promise or iteration fails with.
 */
export class MultipartForm {
  /** Resolves when the file part begins; fails when the form ends without one or is malformed. */
  readonly fileStarted: Promise<FilePart>;
  /** Resolves when the whole form has been read, with the text fields that followed the file. */
  readonly finished: Promise<ReadonlyMap<string, string>>;

  #failure: ApiError | undefined;
  #stopped = false;
  #file: Readable | undefined;
  #parser: busboy.Busboy | undefined;
  readonly #req: IncomingMessage;
  readonly #fieldsBefore = new Map<string, string>();
  readonly #fieldsAfter = new Map<string, string>();
  #rejectStart: (error: ApiError) => void = () => undefined;
  #rejectFinish: (error: ApiError) => void = () => undefined;

  constructor(req: IncomingMessage, limits: FormLimits) {
    this.#req = req;
    let resolveStart: (part: FilePart) => void = () => undefined;
    let resolveFinish: (fields: ReadonlyMap<string, string>) => void = () => undefined;
    this.fileStarted = new Promise((resolve, reject) => ((resolveStart = resolve), (this.#rejectStart = reject)));
    this.finished = new Promise((resolve, reject) => ((resolveFinish = resolve), (this.#rejectFinish = reject)));
    // Whoever does not wait for one of these learns of failures some other way.
    this.fileStarted.catch(() => undefined);
    this.finished.catch(() => undefined);

    const parser = createParser(req, limits);
    this.#parser = parser;
    parser.on('file', (name, stream, info) => {
      // A file stream's errors reach readers through bytes() and failure(); unread, they must not go unhandled.
      stream.on('error', () => undefined);
      if (name !== 'file') {
        stream.resume();
        return this.fail(invalidRequest(name, `unexpected file field ${JSON.stringify(name)}; send the file in a field named "file"`));
      }
      this.#file = stream;
      stream.once('limit', () => this.fail(contentTooLarge('file', `the file is larger than the limit of ${limits.maxFileBytes} bytes`)));
      resolveStart({ filename: info.filename ?? '', declaredType: info.mimeType ?? '', fieldsBefore: this.#fieldsBefore });
    });
    parser.on('field', (name, value, info) => this.#field(name, value, info.valueTruncated, limits.fieldNames));
    parser.on('filesLimit', () => this.fail(invalidRequest('file', 'the form has more than one file; send exactly one file part named "file"')));
    parser.on('fieldsLimit', () => this.fail(invalidRequest('form', 'the form has too many fields')));
    parser.on('partsLimit', () => this.fail(invalidRequest('form', 'the form has too many parts')));
    parser.on('error', (error: Error) => this.fail(malformed(error)));
    parser.on('close', () => {
      if (this.#failure) return;
      if (this.#file === undefined) return this.fail(invalidRequest('file', 'the form has no file part; send the file in a field named "file"'));
      resolveFinish(this.#fieldsAfter);
    });
    req.on('close', () => {
      if (!req.complete) this.fail(new ApiError('canceled', 'the client closed the connection before the form was complete'));
    });
    req.pipe(parser);
  }

  /** The file's bytes. Fails with the form's failure (too large, truncated, …) the moment one is found. */
  async *bytes(): AsyncGenerator<Uint8Array> {
    const file = this.#file;
    if (file === undefined) throw this.#failure ?? new Error('bytes() before the file part started');
    try {
      for await (const chunk of file) {
        if (this.#failure) break;
        yield chunk as Buffer;
      }
    } catch (error) {
      throw this.#failure ?? malformed(error as Error);
    }
    if (this.#failure) throw this.#failure;
    // busboy pushes only the bytes up to the limit before it reports it.
    if ((file as Readable & { truncated?: boolean }).truncated) throw this.#failure ?? new ApiError('internal', 'file truncated');
  }

  /** The first problem found, if any: it explains a failed call better than the call's own error. */
  failure(): ApiError | undefined {
    return this.#failure;
  }

  /** Records the first problem and stops reading the form; the request's remaining bytes are left to the responder. */
  fail(error: ApiError): void {
    if (this.#failure || this.#stopped) return;
    this.#failure = error;
    this.#rejectStart(error);
    this.#rejectFinish(error);
    // Failures are found inside busboy's own callbacks, which go on using their state after emitting: tear down after them.
    queueMicrotask(() => this.#stopParsing(error));
  }

  /** Stops reading (an early answer such as a refusal from the service). */
  abandon(): void {
    this.#stopParsing();
  }

  #stopParsing(error?: ApiError): void {
    const parser = this.#parser;
    if (parser === undefined) return;
    this.#parser = undefined;
    this.#stopped = true;
    this.#req.unpipe(parser);
    this.#file?.destroy(error);
    // What the parser says while it is torn down is no news.
    parser.removeAllListeners();
    parser.on('error', () => undefined);
    parser.destroy();
  }

  #field(name: string, value: string, truncated: boolean, allowed: readonly string[]): void {
    if (name === 'file') return this.fail(invalidRequest('file', 'must be a file part (with a filename), not a text field'));
    if (!allowed.includes(name)) {
      const expected = allowed.length === 0 ? 'this form takes only "file"' : `expected ${allowed.map((n) => `"${n}"`).join(', ')} besides "file"`;
      return this.fail(invalidRequest(name, `unknown field ${JSON.stringify(name)}; ${expected}`));
    }
    if (truncated) return this.fail(invalidRequest(name, `longer than ${FIELD_MAX_BYTES} bytes`));
    if (this.#fieldsBefore.has(name) || this.#fieldsAfter.has(name)) return this.fail(invalidRequest(name, 'given more than once'));
    (this.#file === undefined ? this.#fieldsBefore : this.#fieldsAfter).set(name, value);
  }
}

/**
 * Checks what can be checked before reading a byte: a multipart/form-data
 * content type with a boundary, and a declared length within the limit.
 */
function createParser(req: IncomingMessage, limits: FormLimits): busboy.Busboy {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw invalidRequest('content-type', `expected multipart/form-data, got ${contentType ? JSON.stringify(contentType) : 'none'}`);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
    throw contentTooLarge('file', `the body of ${declared} bytes is larger than the upload limit of ${limits.maxFileBytes} bytes`);
  }
  try {
    return busboy({
      headers: req.headers,
      // busboy reports reaching a limit, not passing it: one byte more tells a file of exactly the maximum from a larger one.
      limits: { files: 1, fileSize: limits.maxFileBytes + 1, fields: limits.fieldNames.length + 1, fieldSize: FIELD_MAX_BYTES + 1, parts: limits.fieldNames.length + 3, headerPairs: 16 },
    });
  } catch (error) {
    throw invalidRequest('content-type', `${(error as Error).message.replace(/^Multipart: /, '')}: a multipart/form-data body needs a boundary parameter`);
  }
}

/** busboy's parse errors, in words a client can act on. */
function malformed(error: Error): ApiError {
  const reason = /unexpected end/i.test(error.message)
    ? 'the body ended before the form was complete (truncated upload?)'
    : `the multipart body is malformed (${error.message})`;
  return invalidRequest('form', reason);
}
