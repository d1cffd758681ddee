import test from 'ava';
import { ApiError } from '../http/api-error.js';
import { parseCreateRouteBody } from './route-body.js';

function problems(body: Record<string, unknown>): string[] {
  try {
    parseCreateRouteBody(body);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_argument' && error.status === 400) return error.details.map((d) => `${d.field}: ${d.reason}`);
    throw error;
  }
  throw new Error('accepted');
}

test('a complete body passes through; middleware defaults to none', (t) => {
  t.deepEqual(parseCreateRouteBody({ method: 'get', path: '/a/:b', handler: 'h', middleware: ['m1', 'm2'] }), { method: 'get', path: '/a/:b', handler: 'h', middleware: ['m1', 'm2'] });
  t.deepEqual(parseCreateRouteBody({ method: 'GET', path: '/', handler: 'h' }).middleware, []);
});

test('unknown, assigned, missing and mistyped fields are each listed', (t) => {
  t.deepEqual(problems({ method: 'GET', path: '/', handler: 'h', handlr: 'x' }), ['handlr: is not a field of a route (method, path, middleware, handler)']);
  t.deepEqual(problems({ method: 'GET', path: '/', handler: 'h', createdAt: 'now' }), ['createdAt: is assigned by the service; leave it out']);
  t.deepEqual(problems({}), ['method: is required', 'path: is required', 'handler: is required']);
  t.deepEqual(problems({ method: 1, path: null, handler: {}, middleware: [1] }), [
    'method: must be a string',
    'path: must be a string',
    'handler: must be a string',
    'middleware: must be an array of strings',
  ]);
  t.deepEqual(problems({ method: 'GET', path: '/', handler: 'h', middleware: null }), ['middleware: must be an array of strings']);
  t.deepEqual(problems(JSON.parse('{"method":"GET","path":"/","handler":"h","__proto__":{"x":1}}') as Record<string, unknown>), [
    '__proto__: is not a field of a route (method, path, middleware, handler)',
  ]);
});
