import Fastify from 'fastify';
import { watchRouteTable } from '@switchyard/client';
import { createDispatcher } from '@switchyard/dispatch';
import { fastifyDispatch } from '@switchyard/dispatch/fastify';
import { handlers, middleware } from './registry.js';

const table = watchRouteTable({ url: process.env.SWITCHYARD_URL!, token: process.env.SWITCHYARD_TOKEN! });
await table.ready;

const app = Fastify();
app.get('/health', async () => 'ok');
await app.register(fastifyDispatch(createDispatcher({ table, handlers, middleware }))); // one catch-all route
await app.listen({ port: Number(process.env.PORT ?? 3000) });
