import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

/**
 * A gRPC error detail as a log line shows it: the decoded `google.rpc`
 * message where we know its type (ErrorInfo, BadRequest, RetryInfo), else
 * its type and size. Connect keeps an incoming detail as `{ type, value }`
 * with the protobuf bytes in `value`, which JSON would print as a map of byte
 * offsets.
 */
export type LoggedDetail = { readonly type: string } & Readonly<Record<string, unknown>>;

type Decoder = (reader: BinaryReader) => Record<string, unknown>;

const DECODERS: Readonly<Record<string, Decoder>> = {
  'google.rpc.ErrorInfo': decodeErrorInfo,
  'google.rpc.BadRequest': decodeBadRequest,
  'google.rpc.RetryInfo': decodeRetryInfo,
};

export function loggedDetail(detail: unknown): unknown {
  if (typeof detail !== 'object' || detail === null) return detail;
  const { type, value } = detail as { type?: unknown; value?: unknown };
  if (typeof type !== 'string' || !(value instanceof Uint8Array)) return detail;
  const decode = DECODERS[type];
  if (decode !== undefined) {
    try {
      return { type, ...decode(new BinaryReader(value)) };
    } catch {
      // Not the message it claims to be: say so rather than print its bytes.
    }
  }
  return { type, bytes: value.byteLength };
}

/** ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; } */
function decodeErrorInfo(reader: BinaryReader): Record<string, unknown> {
  let reason = '';
  let domain = '';
  const metadata: Record<string, string> = {};
  eachField(reader, (field, wireType) => {
    if (field === 1) reason = reader.string();
    else if (field === 2) domain = reader.string();
    else if (field === 3) {
      let key = '';
      let entryValue = '';
      eachField(new BinaryReader(reader.bytes()), (entryField, entryWire, entry) => {
        if (entryField === 1) key = entry.string();
        else if (entryField === 2) entryValue = entry.string();
        else entry.skip(entryWire);
      });
      metadata[key] = entryValue;
    } else reader.skip(wireType);
  });
  return { reason, domain, metadata };
}

/** BadRequest { repeated FieldViolation field_violations = 1; } FieldViolation { string field = 1; string description = 2; } */
function decodeBadRequest(reader: BinaryReader): Record<string, unknown> {
  const fieldViolations: { field: string; description: string }[] = [];
  eachField(reader, (field, wireType) => {
    if (field !== 1) return reader.skip(wireType);
    const violation = { field: '', description: '' };
    eachField(new BinaryReader(reader.bytes()), (violationField, violationWire, inner) => {
      if (violationField === 1) violation.field = inner.string();
      else if (violationField === 2) violation.description = inner.string();
      else inner.skip(violationWire);
    });
    fieldViolations.push(violation);
  });
  return { fieldViolations };
}

/** RetryInfo { google.protobuf.Duration retry_delay = 1; } Duration { int64 seconds = 1; int32 nanos = 2; } */
function decodeRetryInfo(reader: BinaryReader): Record<string, unknown> {
  let retryDelayMs = 0;
  eachField(reader, (field, wireType) => {
    if (field !== 1) return reader.skip(wireType);
    eachField(new BinaryReader(reader.bytes()), (durationField, durationWire, inner) => {
      if (durationField === 1) retryDelayMs += Number(inner.int64()) * 1000;
      else if (durationField === 2) retryDelayMs += inner.int32() / 1e6;
      else inner.skip(durationWire);
    });
  });
  return { retryDelayMs };
}

function eachField(reader: BinaryReader, visit: (field: number, wireType: WireType, reader: BinaryReader) => unknown): void {
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    visit(field, wireType, reader);
  }
}
