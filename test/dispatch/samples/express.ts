import express from 'express';
import { watchRouteTable } from '@switchyard/client';
import { createDispatcher } from '@switchyard/dispatch';
import { expressDispatch } from '@switchyard/dispatch/express';
import { handlers, middleware } from './registry.js';

const table = watchRouteTable({ url: process.env.SWITCHYARD_URL!, token: process.env.SWITCHYARD_TOKEN! });
await table.ready;

const app = express();
app.get('/health', (_req, res) => void res.send('ok'));
app.use(expressDispatch(createDispatcher({ table, handlers, middleware }))); // unmatched: next()
app.listen(Number(process.env.PORT ?? 3000));
