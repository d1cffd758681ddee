// Successful answers that are not JSON, by operationId: zod describes their
// body, but @fastify/swagger files every zod-described body under
// application/json.

export const SUCCESS_MEDIA_TYPES: Readonly<Record<string, string>> = {
  watchRoutes: 'text/event-stream',
  watchAssets: 'text/event-stream',
};

type Response = Record<string, unknown> & { content?: Record<string, unknown> };

/** Files the 2xx bodies of `operationId` under their real media type, if it has one; idempotent. */
export function fileSuccessBodies(operationId: string, responses: Record<string, Response>): void {
  const mediaType = SUCCESS_MEDIA_TYPES[operationId];
  if (mediaType === undefined) return;
  for (const [status, response] of Object.entries(responses)) {
    const body = response.content?.['application/json'];
    if (!status.startsWith('2') || body === undefined) continue;
    response.content = { [mediaType]: body };
  }
}
