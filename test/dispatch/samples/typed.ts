import express from 'express';
import { SCOPES, SyncedRouteTable, createPrincipal, createSwitchyard, memoryAdapters } from '@switchyard/core';
import { createDispatcher } from '@switchyard/dispatch';
import { expressDispatch, type ExpressNative } from '@switchyard/dispatch/express';

// The core in process: a SyncedRouteTable follows routes.watch.
export const switchyard = createSwitchyard({ ...memoryAdapters(), cdnUrl: 'https://cdn.example.com/files' });
export const caller = createPrincipal('service', 'demo', SCOPES);
export const following = new AbortController(); // abort() to stop following
const table = new SyncedRouteTable();
void table.follow(switchyard.routes.watch(caller, { signal: following.signal }));

// Every declared name must be registered, and ctx.request is Express's.
const dispatcher = createDispatcher<'getUser' | 'listUsers', 'auth', ExpressNative>({
  table,
  handlers: { getUser: (ctx) => ({ id: ctx.params['id'], agent: ctx.request.get('user-agent') }), listUsers: () => [] },
  middleware: { auth: (ctx, next) => (ctx.request.get('authorization') ? next() : ((ctx.status = 401), { code: 'unauthenticated' })) },
});
export const app = express().use(expressDispatch(dispatcher));
