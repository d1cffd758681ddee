import { createServer } from 'node:http';
import { watchRouteTable } from '@switchyard/client';
import { createDispatcher } from '@switchyard/dispatch';
import { nodeListener } from '@switchyard/dispatch/node';
import { handlers, middleware } from './registry.js';

const table = watchRouteTable({ url: process.env.SWITCHYARD_URL!, token: process.env.SWITCHYARD_TOKEN! });
await table.ready;

const dispatcher = createDispatcher({ table, handlers, middleware });
const listener = nodeListener(dispatcher, { fallback: (_req, res) => void res.writeHead(404).end('not here') });
createServer(listener).listen(Number(process.env.PORT ?? 3000));
