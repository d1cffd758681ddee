import type { RawHttpResponse } from './raw-http.js';

/**
 * The statuses docs/errors.md allows for each Connect code, written out here
 * (not imported from the gateway) so the test checks the gateway against the
 * contract, not against itself: the usual status of each code, and the HTTP
 * refinements docs/errors.md documents (413, 405, 408, 416, 431).
 */
const STATUSES_OF_CODE: Readonly<Record<string, readonly number[]>> = {
  invalid_argument: [400],
  failed_precondition: [400],
  out_of_range: [400, 416],
  unauthenticated: [401],
  permission_denied: [403],
  not_found: [404],
  already_exists: [409],
  aborted: [409],
  resource_exhausted: [429, 413, 431],
  unimplemented: [501, 405],
  canceled: [499],
  deadline_exceeded: [504, 408],
  unavailable: [503],
  internal: [500],
  unknown: [500],
  data_loss: [500],
};

/**
 * What is wrong with a response by the properties every hostile request must
 * keep: no 5xx but 503, and every error a JSON body `{code, message, details}`
 * whose Connect code matches its status. Undefined when nothing is.
 */
export function contractViolation(response: RawHttpResponse, head: boolean): string | undefined {
  const { status } = response;
  if (status < 100 || status > 599) return `no valid status line (${status})`;
  if (status >= 500 && status !== 503) return `status ${status}`;
  if (status < 400) return undefined;
  const type = response.header('content-type') ?? '';
  if (!/^application\/json\b/.test(type)) return `error ${status} with content-type ${JSON.stringify(type)}`;
  if (head) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `error ${status} whose body is not JSON: ${JSON.stringify(response.body.subarray(0, 200).toString('utf8'))}`;
  }
  return errorBodyViolation(status, body);
}

export function errorBodyViolation(status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `error body is not an object`;
  const { code, message, details, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `error body has extra keys ${Object.keys(rest).join(', ')}`;
  if (typeof code !== 'string' || !Object.hasOwn(STATUSES_OF_CODE, code)) return `error code ${JSON.stringify(code)} is not a Connect code`;
  if (!STATUSES_OF_CODE[code]!.includes(status)) return `code ${code} with status ${status}`;
  if (typeof message !== 'string' || message === '') return 'error message is not a non-empty string';
  if (/\n\s+at /.test(message)) return 'error message carries a stack trace';
  if (!Array.isArray(details)) return 'details is not an array';
  for (const detail of details) {
    if (typeof detail !== 'object' || detail === null) return 'a detail is not an object';
    const { field, reason, ...extra } = detail as Record<string, unknown>;
    if (typeof reason !== 'string') return 'a detail has no reason';
    if (field !== undefined && typeof field !== 'string') return 'a detail field is not a string';
    if (Object.keys(extra).length > 0) return `a detail has extra keys ${Object.keys(extra).join(', ')}`;
  }
  return undefined;
}

/**
 * The statuses the tus 1.0 protocol gives its own refusals, each tied to the
 * code it refines and to the detail field that names the cause: 412 for a
 * Tus-Resumable the server does not speak, 415 for bytes not sent as
 * application/offset+octet-stream (or a type the workspace policy refuses at
 * finish), 460 Checksum Mismatch.
 */
const TUS_REFINEMENTS: readonly { code: string; status: number; fields: readonly string[] }[] = [
  { code: 'failed_precondition', status: 412, fields: ['Tus-Resumable'] },
  { code: 'invalid_argument', status: 415, fields: ['Content-Type', 'mediaType'] },
  { code: 'invalid_argument', status: 460, fields: ['checksum'] },
];

/**
 * For the tus paths (/v1/uploads): contractViolation, where an error may also
 * carry one of the protocol's statuses above, in the contract's shape, with
 * its code and a detail on its field.
 */
export function tusViolation(response: RawHttpResponse, head: boolean): string | undefined {
  const refinement = TUS_REFINEMENTS.find((candidate) => candidate.status === response.status);
  if (refinement === undefined) return contractViolation(response, head);
  const type = response.header('content-type') ?? '';
  if (!/^application\/json\b/.test(type)) return `error ${response.status} with content-type ${JSON.stringify(type)}`;
  if (head) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `error ${response.status} whose body is not JSON: ${JSON.stringify(response.body.subarray(0, 200).toString('utf8'))}`;
  }
  const { code, details } = body as { code?: unknown; details?: unknown };
  if (code !== refinement.code) return `status ${response.status} with code ${JSON.stringify(code)}, not ${refinement.code}`;
  const fields = Array.isArray(details) ? details.map((detail) => (detail as { field?: unknown } | null)?.field) : [];
  if (!fields.some((field) => refinement.fields.includes(field as string)))
    return `status ${response.status} without a detail on ${refinement.fields.join(' or ')}`;
  // The shape, checked against the usual status of the code.
  return errorBodyViolation(STATUSES_OF_CODE[refinement.code]![0]!, body);
}

/** gRPC status numbers a hostile request must never get: UNKNOWN (2), INTERNAL (13), DATA_LOSS (15). */
const SERVER_FAULTS = new Set([2, 13, 15]);
const SERVER_FAULT_NAMES = new Set(['unknown', 'internal', 'data_loss']);

/**
 * For the Connect protocol paths: what is wrong with a response, by the same
 * properties (no server-fault code, no 5xx but 503). A unary error is a JSON
 * body `{code, message}` (Connect's shape: `details` only when there are
 * some); a streaming one (Connect streaming, gRPC-Web) travels in the last
 * envelope of a 200 response, which is decoded here.
 */
export function connectViolation(response: RawHttpResponse, head: boolean): string | undefined {
  const { status } = response;
  if (status >= 500 && status !== 503) return `status ${status}: ${response.body.subarray(0, 200).toString('utf8')}`;
  const type = response.header('content-type') ?? '';
  if (status >= 400) {
    if (!/^application\/json\b/.test(type)) return `error ${status} with content-type ${JSON.stringify(type)}`;
    if (head) return undefined;
    try {
      const body = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
      if (typeof body['code'] !== 'string' || typeof body['message'] !== 'string') return 'error body without code and message';
      if (SERVER_FAULT_NAMES.has(body['code'])) return `code ${body['code']}: ${body['message']}`;
    } catch {
      return 'error body is not JSON';
    }
    return undefined;
  }
  const grpcStatus = Number(response.header('grpc-status') ?? NaN);
  if (SERVER_FAULTS.has(grpcStatus)) return `grpc-status ${grpcStatus}: ${response.header('grpc-message')}`;
  for (const { flags, data } of envelopes(response.body)) {
    if (/^application\/connect\+json/.test(type) || /^application\/connect/.test(type)) {
      if ((flags & 0x02) === 0) continue;
      const end = JSON.parse(data.toString('utf8')) as { error?: { code?: string; message?: string } };
      if (end.error?.code !== undefined && SERVER_FAULT_NAMES.has(end.error.code))
        return `end-stream code ${end.error.code}: ${end.error.message}`;
    } else if (/^application\/grpc-web/.test(type) && (flags & 0x80) !== 0) {
      const code = Number(/grpc-status:\s*(\d+)/i.exec(data.toString('latin1'))?.[1] ?? NaN);
      if (SERVER_FAULTS.has(code)) return `gRPC-Web trailer status ${code}: ${data.toString('latin1').trim()}`;
    }
  }
  return undefined;
}

function* envelopes(body: Buffer): Generator<{ flags: number; data: Buffer }> {
  let offset = 0;
  while (offset + 5 <= body.length) {
    const flags = body[offset]!;
    const length = body.readUInt32BE(offset + 1);
    yield { flags, data: body.subarray(offset + 5, offset + 5 + length) };
    offset += 5 + length;
  }
}
