import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import type { ServiceError } from '@grpc/grpc-js';

export interface DecodedStatus {
  readonly code: number;
  readonly message: string;
  /** google.rpc.ErrorInfo */
  readonly errorInfo?: { reason: string; domain: string };
  /** google.rpc.BadRequest field violations */
  readonly fieldViolations: Array<{ field: string; description: string }>;
}

/** Decodes `grpc-status-details-bin` (google.rpc.Status) the way any gRPC client would. */
export function decodeStatusDetails(error: ServiceError): DecodedStatus | undefined {
  const raw = error.metadata?.get('grpc-status-details-bin')[0];
  if (!(raw instanceof Buffer)) return undefined;
  const status = fields(raw);
  const result: {
    code: number;
    message: string;
    errorInfo?: { reason: string; domain: string };
    fieldViolations: Array<{ field: string; description: string }>;
  } = {
    code: Number(status.get(1)?.[0] ?? 0),
    message: text(status.get(2)?.[0]),
    fieldViolations: [],
  };
  for (const any of status.get(3) ?? []) {
    const anyFields = fields(any as Uint8Array);
    const typeUrl = text(anyFields.get(1)?.[0]);
    const value = anyFields.get(2)?.[0] as Uint8Array;
    if (typeUrl === 'type.googleapis.com/google.rpc.ErrorInfo') {
      const info = fields(value);
      result.errorInfo = { reason: text(info.get(1)?.[0]), domain: text(info.get(2)?.[0]) };
    } else if (typeUrl === 'type.googleapis.com/google.rpc.BadRequest') {
      for (const violation of fields(value).get(1) ?? []) {
        const v = fields(violation as Uint8Array);
        result.fieldViolations.push({ field: text(v.get(1)?.[0]), description: text(v.get(2)?.[0]) });
      }
    }
  }
  return result;
}

/** JSON details of the `switchyard-error-details` trailer. */
export function jsonDetails(error: ServiceError): Array<{ field?: string; reason: string }> {
  const raw = error.metadata?.get('switchyard-error-details')[0];
  return typeof raw === 'string' ? (JSON.parse(raw) as Array<{ field?: string; reason: string }>) : [];
}

function fields(bytes: Uint8Array): Map<number, Array<Uint8Array | number>> {
  const reader = new BinaryReader(bytes);
  const out = new Map<number, Array<Uint8Array | number>>();
  while (reader.pos < reader.len) {
    const [no, type] = reader.tag();
    const value = type === WireType.Varint ? reader.int32() : type === WireType.LengthDelimited ? reader.bytes() : (reader.skip(type), 0);
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

function text(value: Uint8Array | number | undefined): string {
  return value instanceof Uint8Array ? new TextDecoder().decode(value) : '';
}
