import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { z } from 'zod';

/**
 * Serializes responses with fast-json-stringify, compiled from the JSON
 * Schema of each route's zod response schema: the fields the schema names and
 * nothing else, with no validation pass. fastify-type-provider-zod's own
 * serializer parses every response with zod before JSON.stringify, which was
 * 6.4 % of the server's CPU in a rest-get-asset profile (bench/README.md,
 * "Profiling"; after: zod absent from the profile, 118k → 124k requests in
 * 12 s under the same autocannon load, one run each). The handlers build
 * those bodies from typed views, so the schema's types hold at compile time.
 */
export const responseSerializer: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
  return fastJson(json as Parameters<typeof fastJson>[0]);
};
