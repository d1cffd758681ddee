/**
 * An answer the dispatcher gives itself (no route, a name the service lacks,
 * a failure) in Switchyard's error shape: the body the REST gateway sends,
 * `{ code, message, details }` (docs/errors.md), so clients parse one shape.
 */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: readonly { readonly field?: string; readonly reason: string }[];
}

/** The codes the dispatcher answers with, as the gateway names them. */
export type ErrorCode = 'invalid_argument' | 'not_found' | 'unimplemented' | 'internal';

const STATUS_OF: Readonly<Record<ErrorCode, number>> = { invalid_argument: 400, not_found: 404, unimplemented: 501, internal: 500 };

export class ErrorAnswer {
  readonly status: number;
  /** The serialized body, computed once: a 501 is answered per request from the same instance. */
  readonly text: string;

  constructor(readonly body: ErrorBody) {
    this.status = STATUS_OF[body.code];
    this.text = JSON.stringify(body);
  }
}

export function errorAnswer(code: ErrorCode, message: string, details: ErrorBody['details'] = []): ErrorAnswer {
  return new ErrorAnswer({ code, message, details });
}

/** Headers of every error answer: JSON, per caller, never sniffed (the gateway's API headers). */
export const ERROR_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

/** A failure's answer: the cause stays in the service's log, never in the body. */
export const INTERNAL_ANSWER = errorAnswer('internal', 'internal error');
