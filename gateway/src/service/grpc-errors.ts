import { constants as h2 } from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';

const RESET_NAMES: Readonly<Record<number, string>> = {
  [h2.NGHTTP2_PROTOCOL_ERROR]: 'PROTOCOL_ERROR',
  [h2.NGHTTP2_INTERNAL_ERROR]: 'INTERNAL_ERROR',
  [h2.NGHTTP2_FLOW_CONTROL_ERROR]: 'FLOW_CONTROL_ERROR',
  [h2.NGHTTP2_SETTINGS_TIMEOUT]: 'SETTINGS_TIMEOUT',
  [h2.NGHTTP2_FRAME_SIZE_ERROR]: 'FRAME_SIZE_ERROR',
  [h2.NGHTTP2_REFUSED_STREAM]: 'REFUSED_STREAM',
  [h2.NGHTTP2_CANCEL]: 'CANCEL',
  [h2.NGHTTP2_COMPRESSION_ERROR]: 'COMPRESSION_ERROR',
  [h2.NGHTTP2_CONNECT_ERROR]: 'CONNECT_ERROR',
  [h2.NGHTTP2_ENHANCE_YOUR_CALM]: 'ENHANCE_YOUR_CALM',
  [h2.NGHTTP2_INADEQUATE_SECURITY]: 'INADEQUATE_SECURITY',
  [h2.NGHTTP2_HTTP_1_1_REQUIRED]: 'HTTP_1_1_REQUIRED',
};

/** As Connect maps HTTP/2 resets (STREAM_CLOSED deliberately not, per gRPC's PROTOCOL-HTTP2.md). */
export function resetError(rstCode: number | undefined): ConnectError | undefined {
  const name = rstCode === undefined ? undefined : RESET_NAMES[rstCode];
  if (name === undefined) return undefined;
  const message = `http/2 stream closed with error code ${name} (0x${rstCode!.toString(16)})`;
  switch (rstCode) {
    case h2.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(message, Code.Unavailable);
    case h2.NGHTTP2_CANCEL:
      return new ConnectError(message, Code.Canceled);
    case h2.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(message, Code.ResourceExhausted);
    case h2.NGHTTP2_INADEQUATE_SECURITY:
    case h2.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(message, Code.PermissionDenied);
    default:
      return new ConnectError(message, Code.Internal);
  }
}

/** As Connect maps Node's errors: refused or unresolvable → unavailable, a torn-down stream → aborted. */
export function fromNodeReason(reason: unknown): ConnectError {
  if (reason instanceof ConnectError) return reason;
  const codes = new Set<string>();
  const seen = new Set<unknown>();
  for (let e: unknown = reason; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.add(code);
    if (!('cause' in e)) break;
  }
  const has = (...names: string[]): boolean => names.some((name) => codes.has(name));
  const code = has('ERR_STREAM_WRITE_AFTER_END', 'ERR_STREAM_DESTROYED', 'ERR_HTTP2_INVALID_STREAM', 'ECONNRESET')
    ? Code.Aborted
    : has('ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED')
      ? Code.Unavailable
      : Code.Internal;
  const error = ConnectError.from(reason, code);
  if (error !== reason) error.cause = reason;
  return error;
}
