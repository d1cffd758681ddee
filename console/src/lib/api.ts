// Every REST call goes through @switchyard/client's REST client (the console
// proves our own client). Each view gets a client bound to its AbortSignal,
// so leaving the view aborts what it still has in flight, and any 401 ends
// the session with the server's reason.
import { createRestClient, SwitchyardRestError, type RestAsset, type RestClient } from '@switchyard/client/web';
import { currentToken, signOut } from './session.js';

/** An asset as the API answers it, with the fields newer servers add (absent from older ones). */
export interface Asset extends Omit<RestAsset, 'name'> {
  /** "" or absent when the upload named no file. */
  readonly name?: string;
  readonly durationMs?: number;
  readonly pages?: number;
  readonly placeholder?: string;
}

export type WorkspacePolicy = Awaited<ReturnType<RestClient['getWorkspacePolicy']>>;
export type WorkspaceUsage = Awaited<ReturnType<RestClient['getWorkspaceUsage']>>;

export interface AssetQuery {
  readonly pageSize?: number;
  readonly pageToken?: string;
  readonly type?: string;
  readonly label?: string;
  /** Case-insensitive prefix of the name. */
  readonly q?: string;
}

export interface AssetChanges {
  readonly name?: string;
  readonly label?: string;
  readonly visibility?: 'public' | 'private';
}

export interface Transform {
  readonly w?: number;
  readonly h?: number;
  readonly fit?: 'cover' | 'contain' | 'inside' | 'fill';
  readonly format?: 'jpeg' | 'png' | 'webp' | 'avif' | 'auto';
  readonly q?: number;
}

/** The REST client with the asset calls typed for the fields the console sends (name, q, transform). */
export interface Api extends Omit<RestClient, 'listAssets' | 'updateAsset' | 'getAsset' | 'replaceAsset' | 'createSignedUrl'> {
  listAssets(query: AssetQuery): Promise<{ readonly assets: readonly Asset[]; readonly nextPageToken: string }>;
  getAsset(id: string): Promise<Asset>;
  updateAsset(id: string, changes: AssetChanges): Promise<Asset>;
  replaceAsset(id: string, file: Blob, options?: { filename?: string }): Promise<Asset>;
  createSignedUrl(
    id: string,
    options: { expiresIn: number; transform?: Transform },
  ): Promise<{ readonly url: string; readonly expiresAt: string }>;
}

/** The gateway serving the console is the API's origin. */
export const apiBase = (): string => location.origin;

export function createApi(signal?: AbortSignal): Api {
  // The client's parameter types predate `name`, `q` and `transform`; it sends whatever it is given as JSON or query.
  return createRestClient({ baseUrl: apiBase(), token: currentToken, fetch: guardedFetch(signal) });
}

/** fetch with the view's signal added and 401s turned into a sign-out. */
export function guardedFetch(viewSignal?: AbortSignal): typeof fetch {
  return async (input, init = {}) => {
    const signals = [viewSignal, init.signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const response = await fetch(input, { ...init, signal });
    if (response.status === 401) signOut(await refusalReason(response.clone()));
    return response;
  };
}

async function refusalReason(response: Response): Promise<string> {
  let detail = '';
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') detail = `: ${body.message}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return `The server refused your token (401${detail}). Sign in again.`;
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** A sentence for an error a call threw; undefined for an abort (nobody is waiting for it). */
export function errorText(error: unknown, doing?: string): string | undefined {
  if (isAbort(error)) return undefined;
  // A 401 has already ended the session; the sign-in page says why.
  if (error instanceof SwitchyardRestError && error.status === 401) return undefined;
  const prefix = doing ? `${doing} failed: ` : '';
  if (error instanceof SwitchyardRestError) {
    const details = error.details.map((detail) => `${detail.field} ${detail.reason}`).join('; ');
    return `${prefix}${error.message}${details && !error.message.includes(details) ? ` (${details})` : ''} [${error.status} ${error.code}]`;
  }
  if (error instanceof TypeError) return `${prefix}the server could not be reached (${error.message}).`;
  return `${prefix}${error instanceof Error ? error.message : String(error)}`;
}

export { SwitchyardRestError };
