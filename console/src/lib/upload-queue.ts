// Uploads over tus (/v1/uploads, tus-js-client): several files, three at a
// time, each with progress, speed, time left, pause, resume and cancel.
// tus-js-client keeps each unfinished upload's url in localStorage (under a
// fingerprint of the workspace and the file, never the token), so after a
// reload picking the same file again continues where it stopped.
import { signal } from '@preact/signals';
import { Upload, defaultOptions, type DetailedError, type PreviousUpload } from 'tus-js-client';
import { apiBase } from './api.js';
import { claims, currentToken, onSessionEnd, signOut } from './session.js';
import { announce } from './announce.js';

export type UploadState = 'waiting' | 'uploading' | 'paused' | 'done' | 'failed' | 'cancelled';

export interface UploadSettings {
  readonly label: string;
  /** '' leaves it to the workspace's default. */
  readonly visibility: '' | 'public' | 'private';
}

const CONCURRENT = 3;
// Chunks bound what a pause or a dropped connection loses; 8 MiB keeps S3 parts above their 5 MiB minimum.
const CHUNK_BYTES = 8 * 1024 * 1024;
const SPEED_WINDOW_MS = 4000;
const endpoint = () => `${apiBase()}/v1/uploads`;

let serial = 0;

export class UploadJob {
  readonly key = ++serial;
  readonly state = signal<UploadState>('waiting');
  readonly sent = signal(0);
  /** Bytes per second over the last few seconds. */
  readonly speed = signal(0);
  readonly error = signal('');
  /** Where this upload continued from an earlier one (a pause before a reload), in bytes. */
  readonly resumedAt = signal(0);
  readonly assetId = signal('');
  #upload: Upload | undefined;
  #samples: { t: number; bytes: number }[] = [];

  constructor(
    readonly file: File,
    readonly settings: UploadSettings,
    /** Set when the browser refused it before sending (policy pre-check). */
    refusal?: string,
  ) {
    if (refusal) {
      this.state.value = 'failed';
      this.error.value = refusal;
    }
  }

  /** The upload's url on the server, once created. */
  get url(): string | null {
    return this.#upload?.url ?? null;
  }

  get total(): number {
    return this.file.size;
  }

  /** Seconds left at the current speed, or NaN when unknown. */
  get secondsLeft(): number {
    return this.speed.value > 0 ? (this.total - this.sent.value) / this.speed.value : Number.NaN;
  }

  async begin(): Promise<void> {
    this.state.value = 'uploading';
    this.error.value = '';
    this.#samples = [];
    this.speed.value = 0;
    if (this.#upload) return this.#upload.start();
    const upload = new Upload(this.file, {
      endpoint: endpoint(),
      chunkSize: CHUNK_BYTES,
      retryDelays: [0, 1000, 3000, 5000],
      metadata: {
        filename: this.file.name,
        ...(this.settings.label ? { label: this.settings.label } : {}),
        ...(this.settings.visibility ? { visibility: this.settings.visibility } : {}),
      },
      fingerprint: async (file: File) => fingerprintOf(file),
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      // The token goes in a header on every request (creation, PATCH, HEAD, DELETE); read fresh each time.
      onBeforeRequest: (request) => request.setHeader('Authorization', `Bearer ${currentToken()}`),
      onProgress: (bytesSent) => this.#progress(bytesSent),
      onSuccess: ({ lastResponse }) => {
        this.sent.value = this.total;
        this.state.value = 'done';
        this.assetId.value = lastResponse.getHeader('Switchyard-Asset-Id') ?? '';
        announce(`Uploaded ${this.file.name}.`);
        uploadListeners.forEach((listener) => listener(this));
        pump();
      },
      onError: (error) => {
        this.state.value = 'failed';
        this.error.value = describeTusError(error);
        pump();
      },
      onShouldRetry: (error) => {
        const status = error.originalResponse?.getStatus() ?? 0;
        // Refusals (413, 415, 403...) will not change; conflicts, locks, rate limits and network failures may.
        return status === 0 || status >= 500 || status === 409 || status === 423 || status === 429;
      },
    });
    this.#upload = upload;
    const previous = await upload.findPreviousUploads();
    if (previous[0]) {
      upload.resumeFromPreviousUpload(previous[0]);
      this.resumedAt.value = -1; // the offset is known at the first progress report
    }
    if (this.state.value === 'uploading') upload.start();
  }

  pause(): void {
    if (this.state.value !== 'uploading' && this.state.value !== 'waiting') return;
    this.state.value = 'paused';
    this.speed.value = 0;
    // Without terminating: the server keeps what it has, and the stored url resumes it.
    void this.#upload?.abort(false);
    pump();
  }

  resume(): void {
    if (this.state.value !== 'paused' && this.state.value !== 'failed') return;
    this.state.value = 'waiting';
    this.error.value = '';
    pump();
  }

  async cancel(): Promise<void> {
    const wasStarted = this.#upload?.url != null;
    this.state.value = 'cancelled';
    this.speed.value = 0;
    pump();
    // Terminates the upload on the server (tus DELETE) and forgets its stored url.
    if (this.#upload && wasStarted) await this.#upload.abort(true).catch(() => undefined);
    else await this.#upload?.abort(false);
  }

  /** Stops without terminating (the session ended): the stored url can resume it later. */
  detach(): void {
    void this.#upload?.abort(false);
  }

  #progress(bytesSent: number): void {
    const now = performance.now();
    if (this.resumedAt.value === -1) this.resumedAt.value = bytesSent;
    this.sent.value = bytesSent;
    this.#samples.push({ t: now, bytes: bytesSent });
    while (this.#samples.length > 2 && now - this.#samples[0]!.t > SPEED_WINDOW_MS) this.#samples.shift();
    const first = this.#samples[0]!;
    const elapsed = (now - first.t) / 1000;
    if (elapsed > 0.2) this.speed.value = Math.max(0, (bytesSent - first.bytes) / elapsed);
  }
}

export const jobs = signal<readonly UploadJob[]>([]);
const uploadListeners = new Set<(job: UploadJob) => void>();

/** Called when a file has become an asset (the list shows it). */
export function onUploaded(listener: (job: UploadJob) => void): () => void {
  uploadListeners.add(listener);
  return () => uploadListeners.delete(listener);
}

export function addFiles(files: Iterable<File>, settings: UploadSettings, refusalOf: (file: File) => string | undefined): void {
  const added = [...files].map((file) => new UploadJob(file, settings, refusalOf(file)));
  jobs.value = [...jobs.value, ...added];
  pump();
}

/** Drops finished, failed and cancelled uploads from the list. */
export function clearFinished(): void {
  jobs.value = jobs.value.filter((job) => job.state.value === 'uploading' || job.state.value === 'waiting' || job.state.value === 'paused');
}

/** Starts waiting uploads while fewer than CONCURRENT are running. */
function pump(): void {
  let running = jobs.value.filter((job) => job.state.value === 'uploading').length;
  for (const job of jobs.value) {
    if (running >= CONCURRENT) break;
    if (job.state.value !== 'waiting') continue;
    running += 1;
    job.begin().catch((error: unknown) => {
      job.state.value = 'failed';
      job.error.value = error instanceof Error ? error.message : String(error);
    });
  }
}

/** The workspace, the file's name, type, size and date, and the endpoint: no token. */
function fingerprintOf(file: File): string {
  return [fingerprintPrefix(), file.name, file.type, file.size, file.lastModified, endpoint()].join('|');
}

function fingerprintPrefix(): string {
  return `switchyard|${claims.value?.workspace ?? ''}`;
}

function describeTusError(error: Error | DetailedError): string {
  const response = 'originalResponse' in error ? error.originalResponse : null;
  if (!response) return `The upload failed: ${('causingError' in error && error.causingError?.message) || error.message}`;
  const status = response.getStatus();
  if (status === 401) signOut('The server refused your token during an upload (401). Sign in again; the upload can be resumed.');
  let message = '';
  try {
    const body = JSON.parse(response.getBody()) as { message?: unknown; code?: unknown };
    if (typeof body.message === 'string') message = body.message;
  } catch {
    message = response.getBody().slice(0, 200);
  }
  const what =
    status === 413 ? 'Too large for this workspace' : status === 415 ? 'Type not allowed in this workspace' : `Refused (${status})`;
  return `${what}: ${message || 'no reason given'} [${status}]`;
}

/** Uploads of this workspace a previous page left unfinished (their urls are in localStorage). */
export async function storedUploads(): Promise<PreviousUpload[]> {
  const all = await defaultOptions.urlStorage.findAllUploads().catch(() => []);
  const mine = `tus::${fingerprintPrefix()}|`;
  const listed = new Set(jobs.value.map((job) => job.url));
  return all.filter((upload) => upload.urlStorageKey.startsWith(mine) && !listed.has(upload.uploadUrl));
}

/** How far a stored upload got (tus HEAD), or undefined when the server no longer has it (then it is forgotten). */
export async function storedOffset(upload: PreviousUpload, signal: AbortSignal): Promise<number | undefined> {
  if (!upload.uploadUrl) return undefined;
  const response = await fetch(upload.uploadUrl, {
    method: 'HEAD',
    headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${currentToken()}` },
    signal,
  });
  if (response.status === 404 || response.status === 410 || response.status === 403) {
    await defaultOptions.urlStorage.removeUpload(upload.urlStorageKey);
    return undefined;
  }
  const offset = Number(response.headers.get('Upload-Offset'));
  return Number.isFinite(offset) ? offset : undefined;
}

/** Ends a stored upload on the server and forgets it. */
export async function discardStored(upload: PreviousUpload): Promise<void> {
  if (upload.uploadUrl) {
    await fetch(upload.uploadUrl, {
      method: 'DELETE',
      headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${currentToken()}` },
    }).catch(() => undefined);
  }
  await defaultOptions.urlStorage.removeUpload(upload.urlStorageKey);
}

// Signing out stops the uploads (resumable later) and empties the list.
onSessionEnd(() => {
  for (const job of jobs.value) job.detach();
  jobs.value = [];
});
