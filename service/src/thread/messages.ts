/** An error as it crosses the thread boundary (structured clone drops an Error's own fields). */
export interface ThreadError {
  readonly message: string;
  readonly code?: string | undefined;
  readonly stack?: string | undefined;
}

export type ToServiceThread = { readonly type: 'close' };

export type FromServiceThread =
  | { readonly type: 'listening'; readonly address: string; readonly port: number }
  | { readonly type: 'failed'; readonly error: ThreadError }
  | { readonly type: 'closed'; readonly error?: ThreadError | undefined };

export function toThreadError(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, code: typeof code === 'string' ? code : undefined, stack: error.stack };
}
