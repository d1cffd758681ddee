import type { Handler, Middleware } from '@switchyard/dispatch';

const users = new Map([['42', { id: '42', name: 'Ada' }]]);

/** A request header, whichever framework handed the request over (a Web Request, or node's headers). */
const headerOf = (request: unknown, name: string) =>
  request instanceof Request ? request.headers.get(name) : (request as { headers: Record<string, string | undefined> }).headers[name];

export const handlers: Record<string, Handler> = {
  getUser: (ctx) => users.get(ctx.params['id'] ?? '') ?? Response.json({ code: 'not_found', message: 'no such user' }, { status: 404 }),
  listUsers: () => [...users.values()],
};

export const middleware: Record<string, Middleware> = {
  // Answers and stops, or goes on.
  auth: (ctx, next) =>
    headerOf(ctx.request, 'authorization') === 'Bearer demo'
      ? next()
      : Response.json({ code: 'unauthenticated', message: 'who are you?' }, { status: 401 }),
  // Acts after the rest of the chain.
  timing: async (ctx, next) => {
    const started = performance.now();
    const answer = await next();
    ctx.setHeader('server-timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
    return answer;
  },
};
