// Headers the gateway sends, as the OpenAPI document declares them per response.

const requestId = {
  'x-request-id': {
    description: "The caller's own `x-request-id` when sane (1-128 of `[A-Za-z0-9._:-]`), else a fresh UUID; also in the logs.",
    schema: { type: 'string' },
  },
};
const location = { Location: { required: true, description: 'Path of the created resource.', schema: { type: 'string' } } };
const retryAfter = {
  'Retry-After': { description: 'Whole seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } },
};
const allow = { Allow: { required: true, description: 'The methods the path takes.', schema: { type: 'string' } } };

/** The operations whose 201 names what they made in `Location`. */
const CREATING: ReadonlySet<string> = new Set(['createRoute', 'uploadAsset', 'createKey', 'createWebhook']);

/** The headers of one response of one operation, beyond the body's content type. */
export function RESPONSE_HEADERS(operationId: string, status: number): Record<string, unknown> | undefined {
  if (status === 201 && CREATING.has(operationId)) return { ...location, ...requestId };
  if (status === 429 || status === 503) return { ...retryAfter, ...requestId };
  if (status === 405) return allow;
  if (status >= 200 && status < 600) return requestId;
  return undefined;
}
