/** One POST of a delivery, signed; the sender neither follows redirects nor waits past `timeoutMs`. */
export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

/** What the receiver answered. */
export interface WebhookAnswer {
  readonly statusCode: number;
  readonly retryAfter?: string | undefined;
  /** The start of the body, at most RESPONSE_EXCERPT_BYTES. */
  readonly body: string;
}

/** At most this much of an answer is kept in the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * Sends a delivery (the service's sends over node:http with destination
 * checks). Rejects when there was no answer: refused destination,
 * connection error, timeout; the error's message says which, and never
 * carries a header value.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookAnswer>;
}
