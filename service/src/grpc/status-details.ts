import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { ErrorDetail } from '@switchyard/core';

/** Trailer that standard gRPC clients decode into rich error details. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
export const ERROR_INFO_DOMAIN = 'switchyard';

const TYPE_PREFIX = 'type.googleapis.com/';

/**
 * Encodes a `google.rpc.Status` carrying an `ErrorInfo` (reason: the
 * Switchyard code in upper case, domain "switchyard"), when any detail
 * names a field, a `BadRequest` with one field violation per such detail, and
 * when the error says when to retry, a `RetryInfo`.
 * Four tiny messages, written by hand rather than generating googleapis.
 */
export function encodeStatusDetails(
  grpcCode: number,
  message: string,
  switchyardCode: string,
  details: readonly ErrorDetail[],
  retryAfterMs?: number,
): Uint8Array {
  const status = new BinaryWriter();
  status.tag(1, WireType.Varint).int32(grpcCode);
  status.tag(2, WireType.LengthDelimited).string(message);
  writeAny(status, 'google.rpc.ErrorInfo', encodeErrorInfo(switchyardCode.toUpperCase()));
  const violations = details.filter((detail) => detail.field !== undefined);
  if (violations.length > 0) writeAny(status, 'google.rpc.BadRequest', encodeBadRequest(violations));
  if (retryAfterMs !== undefined) writeAny(status, 'google.rpc.RetryInfo', encodeRetryInfo(retryAfterMs));
  return status.finish();
}

/** google.rpc.RetryInfo { google.protobuf.Duration retry_delay = 1 }, Duration { int64 seconds = 1; int32 nanos = 2 }. */
function encodeRetryInfo(retryAfterMs: number): Uint8Array {
  const info = new BinaryWriter();
  info.tag(1, WireType.LengthDelimited).fork();
  info.tag(1, WireType.Varint).int64(Math.floor(retryAfterMs / 1000));
  info.tag(2, WireType.Varint).int32((retryAfterMs % 1000) * 1_000_000);
  info.join();
  return info.finish();
}

function writeAny(status: BinaryWriter, typeName: string, value: Uint8Array): void {
  status.tag(3, WireType.LengthDelimited).fork();
  status.tag(1, WireType.LengthDelimited).string(TYPE_PREFIX + typeName);
  status.tag(2, WireType.LengthDelimited).bytes(value);
  status.join();
}

function encodeErrorInfo(reason: string): Uint8Array {
  const info = new BinaryWriter();
  info.tag(1, WireType.LengthDelimited).string(reason);
  info.tag(2, WireType.LengthDelimited).string(ERROR_INFO_DOMAIN);
  return info.finish();
}

function encodeBadRequest(violations: readonly ErrorDetail[]): Uint8Array {
  const badRequest = new BinaryWriter();
  for (const violation of violations) {
    badRequest.tag(1, WireType.LengthDelimited).fork();
    badRequest.tag(1, WireType.LengthDelimited).string(violation.field ?? '');
    badRequest.tag(2, WireType.LengthDelimited).string(violation.reason);
    badRequest.join();
  }
  return badRequest.finish();
}
