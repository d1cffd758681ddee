// Typed registries: declared names make TypeScript check that the registries
// are complete, and a framework's native types flow into ctx. The
// `@ts-expect-error` lines are checked by `tsc -p tsconfig.test.json` (npm run
// typecheck): each fails the build if the error it expects goes away.
import test from 'ava';
import { createDispatcher, type Handler, type Middleware } from '@switchyard/dispatch';
import { expressDispatch, type ExpressNative } from '@switchyard/dispatch/express';
import { fastifyDispatch } from '@switchyard/dispatch/fastify';
import { fetchHandler, type FetchNative } from '@switchyard/dispatch/fetch';
import { SyncedRouteTable } from '@switchyard/core';

const table = new SyncedRouteTable();
const getUser: Handler = (ctx) => ({ id: ctx.params['id'] });
const listUsers: Handler = () => [];
const auth: Middleware = (_ctx, next) => next();

test('declared names must all be registered, and only they', (t) => {
  const complete = createDispatcher<'getUser' | 'listUsers', 'auth'>({ table, handlers: { getUser, listUsers }, middleware: { auth } });

  // @ts-expect-error listUsers is declared and missing
  createDispatcher<'getUser' | 'listUsers', 'auth'>({ table, handlers: { getUser }, middleware: { auth } });
  // @ts-expect-error deleteUser is not declared
  createDispatcher<'getUser' | 'listUsers', 'auth'>({ table, handlers: { getUser, listUsers, deleteUser: getUser }, middleware: { auth } });
  // @ts-expect-error middleware names are declared, so the middleware registry is required
  createDispatcher<'getUser' | 'listUsers', 'auth'>({ table, handlers: { getUser, listUsers } });
  // @ts-expect-error audit is declared and missing
  createDispatcher<'getUser', 'auth' | 'audit'>({ table, handlers: { getUser }, middleware: { auth } });

  // Undeclared: any names, middleware optional.
  const loose = createDispatcher({ table, handlers: { getUser } });
  t.is(complete.revision, 0);
  t.deepEqual(loose.unknown(), []);
});

test("a framework's native objects flow into ctx, and the dispatcher then fits only that framework's adapter", async (t) => {
  const express = createDispatcher<'whoAmI', never, ExpressNative>({
    table,
    handlers: { whoAmI: (ctx): unknown => ctx.request.get('x-user') ?? ctx.response.locals['user'] },
    middleware: {},
  });
  expressDispatch(express);
  // @ts-expect-error typed for Express, so not a Fastify plugin
  fastifyDispatch(express);

  const web = createDispatcher<'echo', never, FetchNative>({
    table,
    // @ts-expect-error a Web Request has no `get`
    handlers: { echo: (ctx) => ctx.request.get('x') }, // eslint-disable-line @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- the type error is the point
    middleware: {},
  });
  const answer = await fetchHandler(web)(new Request('http://x/nothing'));
  t.is(answer.status, 404);

  // An untyped dispatcher fits every adapter.
  const loose = createDispatcher({ table, handlers: { getUser } });
  expressDispatch(loose);
  fastifyDispatch(loose);
  t.is(loose.begin(undefined, undefined, 'GET', '/users/1'), undefined, 'an empty table matches nothing');
});
