import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { z } from 'zod';

/**
 * Serializes responses with fast-json-stringify, compiled from the JSON
 * Schema of each route's zod response schema: the fields the schema names and
 * nothing else, with no validation pass. fastify-type-provider-zod's own
 * serializer parses every response with zod before JSON.stringify. The
 * handlers build those bodies from typed views, so the schema's types hold at
 * compile time.
 * Justified by rest-get-asset (bench/hand-written-parts.md#response-serializer).
 */
export const responseSerializer: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
  return fastJson(json as Parameters<typeof fastJson>[0]);
};
