import { ErrorAnswer } from './error-answer.js';

/** How an adapter writes what a chain returned (see Handler). */
export type ResultKind = 'error' | 'response' | 'native' | 'text' | 'json';

export function resultKind(result: unknown): ResultKind {
  if (result === undefined) return 'native';
  if (typeof result === 'string') return 'text';
  if (result instanceof ErrorAnswer) return 'error';
  if (typeof Response !== 'undefined' && result instanceof Response) return 'response';
  return 'json';
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';
