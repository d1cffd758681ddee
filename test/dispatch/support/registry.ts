// The handlers and middleware every framework's test app registers: they
// record what ran (ctx.state.trail) so a response tells which chain served it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DispatchContext, Handler, Middleware } from '@switchyard/dispatch';

/** What `show` and the burst handlers answer. */
export interface Served {
  readonly handler: string;
  readonly params: Record<string, string>;
  readonly revision: number;
  /** The matched record's own revision (ctx.route): it must be the record as of `revision`. */
  readonly routeRevision: number;
  readonly trail: string[];
}

const trailOf = (ctx: DispatchContext): string[] => (ctx.state['trail'] as string[] | undefined) ?? (ctx.state['trail'] = []);

const served =
  (name: string) =>
  (ctx: DispatchContext): Served => ({
    handler: name,
    params: { ...ctx.params },
    revision: ctx.revision,
    routeRevision: ctx.route.revision,
    trail: trailOf(ctx),
  });

/** Pushes its name on the way in and `name:after` on the way out (the trail is serialized after the whole chain ran). */
const tracing =
  (name: string): Middleware =>
  async (ctx, next) => {
    trailOf(ctx).push(name);
    const answer = await next();
    trailOf(ctx).push(`${name}:after`);
    return answer;
  };

/** The burst's layers: each waits a little before going on, so requests are in flight while the table changes. */
const slow =
  (name: string): Middleware =>
  async (ctx, next) => {
    trailOf(ctx).push(name);
    await sleep(2);
    return next();
  };

export const BURST_VARIANTS = 5;

export const handlers: Record<string, Handler> = {
  show: served('show'),
  other: served('other'),
  boom: () => {
    throw new Error('handler exploded');
  },
  // An answer the adapter cannot write: JSON.stringify throws on a BigInt.
  unwritable: async () => ({ big: 1n }),
  ...Object.fromEntries(Array.from({ length: BURST_VARIANTS }, (_, k) => [`h${k}`, served(`h${k}`)])),
};

export const middleware: Record<string, Middleware> = {
  a: tracing('a'),
  b: tracing('b'),
  stamp: async (ctx, next) => {
    const answer = await next();
    ctx.setHeader('x-revision', String(ctx.revision));
    return answer;
  },
  deny: (ctx) => {
    ctx.status = 401;
    return { denied: true, revision: ctx.revision };
  },
  explode: async () => {
    throw new Error('middleware exploded');
  },
  // Onion error path: what the rest of the chain threw comes back through `await next()`.
  rescue: async (ctx, next) => {
    try {
      return await next();
    } catch (error) {
      ctx.status = 503;
      return { rescued: (error as Error).message, trail: trailOf(ctx) };
    }
  },
  ...Object.fromEntries(Array.from({ length: BURST_VARIANTS }, (_, k) => [`m${k}`, slow(`m${k}`)])),
};
