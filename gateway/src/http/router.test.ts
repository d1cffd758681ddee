import test from 'ava';
import { ApiError } from './api-error.js';
import { Router, type Endpoint } from './router.js';

const endpoint = (method: Endpoint['method'], path: string): Endpoint => ({ method, path, handle: async () => undefined });
const router = new Router([
  endpoint('POST', '/v1/things'),
  endpoint('GET', '/v1/things:search'),
  endpoint('POST', '/v1/things/upload'),
  endpoint('GET', '/v1/things/{id}'),
  endpoint('POST', '/v1/things/{id}/replace'),
  endpoint('GET', '/files/{a}/{b}'),
  endpoint('HEAD', '/files/{a}/{b}'),
]);

test('literal and templated paths, with decoded parameters', (t) => {
  const found = router.find('GET', '/v1/things/th%201');
  t.is(found.kind, 'found');
  if (found.kind === 'found') {
    t.is(found.endpoint.path, '/v1/things/{id}');
    t.deepEqual(found.params, { id: 'th 1' });
  }
  const search = router.find('GET', '/v1/things:search');
  t.is(search.kind === 'found' && search.endpoint.path, '/v1/things:search');
  const replace = router.find('POST', '/v1/things/x/replace');
  t.deepEqual(replace.kind === 'found' && replace.params, { id: 'x' });
});

test('the first matching template names the resource; its methods decide', (t) => {
  t.deepEqual(router.find('GET', '/v1/things/upload'), { kind: 'wrong-method', allowed: ['POST'] });
  t.deepEqual(router.find('DELETE', '/v1/things/1'), { kind: 'wrong-method', allowed: ['GET', 'HEAD'] });
  t.deepEqual(router.find('PUT', '/files/a/b'), { kind: 'wrong-method', allowed: ['GET', 'HEAD'] });
});

test('HEAD falls back to GET; an explicit HEAD endpoint wins', (t) => {
  const head = router.find('HEAD', '/v1/things/1');
  t.is(head.kind === 'found' && head.endpoint.method, 'GET');
  const files = router.find('HEAD', '/files/a/b');
  t.is(files.kind === 'found' && files.endpoint.method, 'HEAD');
});

test('no match: other lengths, empty parameters, trailing slashes', (t) => {
  for (const path of ['/v1/things/', '/v1/things/1/', '/v1', '/v1/things/1/replace/x', '/files/a', '/files//b', '', '*']) {
    t.deepEqual(router.find('GET', path), { kind: 'none' }, path);
  }
});

test('malformed percent-encoding in a parameter is a 400', (t) => {
  const error = t.throws(() => router.find('GET', '/v1/things/%E0%A4%A'));
  t.true(error instanceof ApiError && error.status === 400 && error.details[0]?.field === 'id');
});
