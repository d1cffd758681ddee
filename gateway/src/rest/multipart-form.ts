import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
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

type FileStream = MultipartFile['file'];

/**
 * A multipart/form-data request with exactly one file part named `file`, read
 * part by part with @fastify/multipart (busboy underneath): the file's bytes
 * are never held beyond the parser's small buffer, and reading pauses while
 * the consumer of `bytes()` is busy, so a slow service slows the client
 * instead of filling memory. Text fields may come before or after the file.
 * The first problem found wins and is the reason every pending promise or
 * iteration fails with; the file limit is enforced as the bytes arrive.
 */
export class MultipartForm {
  /** Resolves when the file part begins; fails when the form ends without one or is malformed. */
  readonly fileStarted: Promise<FilePart>;
  /** Resolves when the whole form has been read, with the text fields that followed the file. */
  readonly finished: Promise<ReadonlyMap<string, string>>;

  #failure: ApiError | undefined;
  #stopped = false;
  #file: FileStream | undefined;
  readonly #request: FastifyRequest;
  readonly #parts: AsyncIterableIterator<Multipart>;
  readonly #limits: FormLimits;
  readonly #fieldsBefore = new Map<string, string>();
  readonly #fieldsAfter = new Map<string, string>();
  readonly #fileRead: Promise<void>;
  #fileReadDone: () => void = () => undefined;

  constructor(request: FastifyRequest, limits: FormLimits) {
    checkBeforeReading(request, limits);
    this.#request = request;
    this.#limits = limits;
    this.#fileRead = new Promise((resolve) => (this.#fileReadDone = resolve));
    // Registered before the parser's own listener, so a client that leaves is reported as such.
    request.raw.on('close', () => {
      if (!request.raw.complete) this.fail(new ApiError('canceled', 'the client closed the connection before the form was complete'));
    });
    this.#parts = request.parts({
      // busboy reports reaching a limit, not passing it: one byte more tells a file of exactly the maximum from a larger one.
      limits: {
        files: 1,
        fileSize: limits.maxFileBytes + 1,
        fields: limits.fieldNames.length + 1,
        fieldSize: FIELD_MAX_BYTES + 1,
        parts: limits.fieldNames.length + 3,
        headerPairs: 16,
      },
    });
    this.fileStarted = this.#untilFile();
    this.finished = this.fileStarted.then(() => this.#fileRead).then(() => this.#rest());
    // Whoever does not wait for one of these learns of failures some other way.
    this.fileStarted.catch(() => undefined);
    this.finished.catch(() => undefined);
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
    } finally {
      this.#fileReadDone();
    }
    if (this.#failure) throw this.#failure;
    // busboy pushes only the bytes up to the limit before it reports it.
    if (file.truncated) throw this.#failure ?? new ApiError('internal', 'file truncated');
  }

  /** The first problem found, if any: it explains a failed call better than the call's own error. */
  failure(): ApiError | undefined {
    return this.#failure;
  }

  /** Records the first problem and stops reading the form; the request's remaining bytes are left to the responder. */
  fail(error: ApiError): ApiError {
    if (this.#failure || this.#stopped) return this.#failure ?? error;
    this.#failure = error;
    // Failures are found inside busboy's own callbacks, which go on using their state after emitting: tear down after them.
    queueMicrotask(() => this.#stopParsing(error));
    return error;
  }

  /** Stops reading (an early answer such as a refusal from the service). */
  abandon(): void {
    this.#stopParsing();
  }

  async #untilFile(): Promise<FilePart> {
    for (;;) {
      const part = await this.#next();
      if (part === undefined) throw this.fail(invalidRequest('file', 'the form has no file part; send the file in a field named "file"'));
      if (part.type === 'field') {
        this.#field(part, this.#fieldsBefore);
        continue;
      }
      // A file stream's errors reach readers through bytes() and failure(); unread, they must not go unhandled.
      part.file.on('error', () => undefined);
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw this.fail(
          invalidRequest(part.fieldname, `unexpected file field ${JSON.stringify(part.fieldname)}; send the file in a field named "file"`),
        );
      }
      this.#file = part.file;
      part.file.once('limit', () =>
        this.fail(contentTooLarge('file', `the file is larger than the limit of ${this.#limits.maxFileBytes} bytes`)),
      );
      return { filename: part.filename ?? '', declaredType: part.mimetype ?? '', fieldsBefore: this.#fieldsBefore };
    }
  }

  /** The parts after the file: text fields only. */
  async #rest(): Promise<ReadonlyMap<string, string>> {
    for (;;) {
      const part = await this.#next();
      if (part === undefined) return this.#fieldsAfter;
      if (part.type === 'file') {
        part.file.resume();
        throw this.fail(tooManyFiles());
      }
      this.#field(part, this.#fieldsAfter);
    }
  }

  /** The next part, the end (undefined), or the form's failure. */
  async #next(): Promise<Multipart | undefined> {
    if (this.#failure) throw this.#failure;
    let next: IteratorResult<Multipart>;
    try {
      next = await this.#parts.next();
    } catch (error) {
      throw this.fail(this.#failure ?? refusal(error as Error & { code?: string }));
    }
    // Read afresh: TypeScript keeps the check above as if the await could not have set it (so `never`, to the linter).
    const failure = this.failure();
    if (failure) throw failure;
    return next.done ? undefined : next.value;
  }

  #field(part: Extract<Multipart, { type: 'field' }>, into: Map<string, string>): void {
    const name = part.fieldname;
    if (name === 'file') throw this.fail(invalidRequest('file', 'must be a file part (with a filename), not a text field'));
    const allowed = this.#limits.fieldNames;
    if (!allowed.includes(name)) {
      const expected =
        allowed.length === 0 ? 'this form takes only "file"' : `expected ${allowed.map((n) => `"${n}"`).join(', ')} besides "file"`;
      throw this.fail(invalidRequest(name, `unknown field ${JSON.stringify(name)}; ${expected}`));
    }
    if (part.valueTruncated) throw this.fail(invalidRequest(name, `longer than ${FIELD_MAX_BYTES} bytes`));
    if (this.#fieldsBefore.has(name) || this.#fieldsAfter.has(name)) throw this.fail(invalidRequest(name, 'given more than once'));
    // @fastify/multipart parses a part sent as application/json; a label is text.
    if (typeof part.value !== 'string') throw this.fail(invalidRequest(name, 'must be a text field'));
    into.set(name, part.value);
  }

  #stopParsing(error?: ApiError): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#file?.destroy(error);
    // Unpiping leaves the rest of the body unread: the responder drains or cuts it (early-close.ts).
    this.#request.raw.unpipe();
    void this.#parts.return?.().catch(() => undefined);
  }
}

/**
 * Checks what can be checked before reading a byte: a multipart/form-data
 * content type with a boundary, and a declared length within the limit.
 */
function checkBeforeReading(request: FastifyRequest, limits: FormLimits): void {
  const contentType = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw invalidRequest('content-type', `expected multipart/form-data, got ${contentType ? JSON.stringify(contentType) : 'none'}`);
  }
  if (!/;\s*boundary=/i.test(contentType)) throw invalidRequest('content-type', 'a multipart/form-data body needs a boundary parameter');
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
    throw contentTooLarge('file', `the body of ${declared} bytes is larger than the upload limit of ${limits.maxFileBytes} bytes`);
  }
}

function tooManyFiles(): ApiError {
  return invalidRequest('file', 'the form has more than one file; send exactly one file part named "file"');
}

/** @fastify/multipart's and busboy's refusals, in words a client can act on. */
function refusal(error: Error & { code?: string }): ApiError {
  switch (error.code) {
    case 'FST_FILES_LIMIT':
      return tooManyFiles();
    case 'FST_FIELDS_LIMIT':
      return invalidRequest('form', 'the form has too many fields');
    case 'FST_PARTS_LIMIT':
      return invalidRequest('form', 'the form has too many parts');
    case 'FST_PROTO_VIOLATION':
      return invalidRequest('form', 'a part is named like a property of every object (__proto__, constructor, …)');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return invalidRequest('form', 'a part declared as application/json is not valid JSON');
    case 'FST_MP_PREMATURE_CLOSE':
      return new ApiError('canceled', 'the client closed the connection before the form was complete');
    default:
      return malformed(error);
  }
}

/** busboy's parse errors, in words a client can act on. */
function malformed(error: Error): ApiError {
  const reason = /unexpected end/i.test(error.message)
    ? 'the body ended before the form was complete (truncated upload?)'
    : `the multipart body is malformed (${error.message})`;
  return invalidRequest('form', reason);
}
