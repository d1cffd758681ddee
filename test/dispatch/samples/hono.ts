import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { watchRouteTable } from '@switchyard/client';
import { createDispatcher } from '@switchyard/dispatch';
import { fetchHandler } from '@switchyard/dispatch/fetch';
import { handlers, middleware } from './registry.js';

const table = watchRouteTable({ url: process.env.SWITCHYARD_URL!, token: process.env.SWITCHYARD_TOKEN! });
await table.ready;

const app = new Hono();
app.get('/health', (c) => c.text('ok'));
const dispatch = fetchHandler(createDispatcher({ table, handlers, middleware }));
app.notFound((c) => dispatch(c.req.raw)); // the table answers what the app's own routes do not
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
