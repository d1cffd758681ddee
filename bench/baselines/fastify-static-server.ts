// Peer for peer-file-serve-*: Fastify 5 with @fastify/static 10 serving a
// folder, as its README shows (`root`, `prefix`), with the settings of the
// README's "Managing cache-control headers" section for assets whose names
// change with their content (ours are content-addressed too): `maxAge: '30d'`
// and `immutable: true`, "By default all assets are immutable and can be
// cached for a long period due to cache bursting techniques". ETag, Last-Modified
// and Range stay on (their defaults). `logger: true` as in the README's Usage:
// Fastify then writes two lines a request, as ours does (the gateway's request
// line and the service's call line).
//
// What it does not do that ours does: no database lookup (the path is the
// file), no visibility or signature check, no metrics, no CORS or safety
// headers (nosniff, CSP sandbox, Content-Disposition); its ETag is weak
// (size and mtime from the stat it makes on every request) where ours is the
// stored sha256.
import Fastify from 'fastify';
import fastifyStatic from '@fastify/static';
import { requiredEnv } from './baseline-auth.js';

const app = Fastify({ logger: true });
await app.register(fastifyStatic, { root: requiredEnv('PEER_FILES_DIR'), prefix: '/files/', maxAge: '30d', immutable: true });

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
console.log(`ready url=${address}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
