import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { HTTP_METHODS, parseMethod } from './method.js';

for (const method of HTTP_METHODS) {
  test(`accepts ${method} in any case and returns it upper-case`, (t) => {
    t.is(parseMethod(method), method);
    t.is(parseMethod(method.toLowerCase()), method);
    t.is(parseMethod(method[0] + method.slice(1).toLowerCase()), method);
  });
}

const refused: [string, unknown, string][] = [
  ['an unknown verb', 'TRACE', 'must be one of'],
  ['CONNECT', 'connect', 'must be one of'],
  ['an empty string', '', 'must be one of'],
  ['surrounding spaces', ' GET', 'must be one of'],
  ['a Unicode look-alike that upper-cases to POST', 'po\u017ft', 'must be one of'],
  ['a number', 1, 'must be a string'],
  ['null', null, 'must be a string'],
  ['an array', ['GET'], 'must be a string'],
];
for (const [label, value, reason] of refused) {
  test(`refuses ${label}`, (t) => {
    const error = t.throws(() => parseMethod(value), { instanceOf: SwitchyardError });
    t.is(error.code, 'invalid_argument');
    t.is(error.details[0]?.field, 'method');
    t.true(error.details[0]!.reason.startsWith(reason), error.details[0]!.reason);
  });
}
