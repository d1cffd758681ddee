import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '@switchyard/runtime';

/**
 * grpc-js writes its own diagnostics to stderr, and one of them quotes header
 * values: a call whose `authorization` holds a byte gRPC metadata may not carry
 * (a tab, latin-1) is logged as "Failed to add metadata entry authorization:
 * Bearer <the whole token>…". Anyone can send such a header, so without this a
 * caller could push live tokens into the logs.
 *
 * Routes grpc-js's messages into our structured log instead, with any header
 * value withheld and anything token-shaped masked.
 */
export function routeGrpcJsLogs(log: Logger): void {
  const child = log.child({ component: 'grpc-js' });
  const write =
    (level: 'warn' | 'info' | 'debug') =>
    (message?: unknown, ...rest: unknown[]) => {
      child[level](scrubGrpcJsMessage([message, ...rest].map(String).join(' ')));
    };
  setLogger({ error: write('warn'), info: write('info'), debug: write('debug') });
}

/** grpc-js: "Failed to add metadata entry <key>: <value>. <reason quoting the value>. For more information…". */
const METADATA_ENTRY = /^(Failed to add metadata entry [^:\s]+):[\s\S]*$/;
/** Credentials in the forms a message could carry them: a scheme and its token, or a bare JWT. */
const CREDENTIALS = [/\b(bearer|basic)\s+\S+/gi, /eyJ[\w-]*\.[\w-]*(\.[\w-]*)?/g];

/** A grpc-js message with header values dropped and credentials masked. */
export function scrubGrpcJsMessage(message: string): string {
  const entry = METADATA_ENTRY.exec(message);
  if (entry) return `${entry[1]}: value withheld (not valid in gRPC metadata); the entry was dropped`;
  return CREDENTIALS.reduce(
    (text, pattern) =>
      text.replace(pattern, (match, scheme?: string) =>
        typeof scheme === 'string' && /^(bearer|basic)$/i.test(scheme) ? `${scheme} [redacted]` : '[redacted]',
      ),
    message,
  );
}
