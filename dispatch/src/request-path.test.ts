import test from 'ava';
import { pathOf } from './request-path.js';

test('the path of a request target or absolute URL, without query or fragment', (t) => {
  t.is(pathOf('/users/42'), '/users/42');
  t.is(pathOf('/users/42?x=1'), '/users/42');
  t.is(pathOf('/users/42#top'), '/users/42');
  t.is(pathOf('/a?b#c'), '/a');
  t.is(pathOf('http://host:8080/users/42?x=/y'), '/users/42');
  t.is(pathOf('https://host'), '/');
  t.is(pathOf('http://host/'), '/');
  t.is(pathOf('/files/a%2Fb'), '/files/a%2Fb', 'encoding is left for the matcher');
});
