import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { MAX_PATTERN_LENGTH, MAX_PATTERN_SEGMENTS, parsePathPattern } from './path-pattern.js';

const accepted: [string, string][] = [
  ['/', '/'],
  ['/users', '/users'],
  ['/users/:id', '/users/:'],
  ['/users/:id/comments/:commentId', '/users/:/comments/:'],
  ['/v1/files.json', '/v1/files.json'],
  ['/a-b/c_d/e~f/g.h', '/a-b/c_d/e~f/g.h'],
  ['/:_x/:y2', '/:/:'],
  ['/:id/:ID', '/:/:'],
  ['/files/*', '/files/*'],
  ['/*', '/*'],
  ['/users/:id/*', '/users/:/*'],
  ['/caf%C3%A9', '/caf%C3%A9'],
  ['/caf%c3%a9', '/caf%C3%A9'],
  ['/%41bc', '/Abc'],
  ['/100%25', '/100%25'],
  ['/%2A', '/%2A'],
  ['/%3Aid', '/%3Aid'],
  ['/...', '/...'],
  [`/:${'p'.repeat(64)}`, '/:'],
];
for (const [pattern, shape] of accepted) {
  test(`accepts ${pattern.length > 40 ? pattern.slice(0, 40) + '…' : pattern} with shape ${shape}`, (t) => {
    const parsed = parsePathPattern(pattern);
    t.is(parsed.source, pattern);
    t.is(parsed.shape, shape);
  });
}

test('parameter names are erased from the shape', (t) => {
  t.is(parsePathPattern('/users/:id').shape, parsePathPattern('/users/:uid').shape);
  t.not(parsePathPattern('/users/:id').shape, parsePathPattern('/users/*').shape);
  t.not(parsePathPattern('/users/:id').shape, parsePathPattern('/users/id').shape);
});

test('segments, parameter names and the wildcard are reported in order', (t) => {
  const parsed = parsePathPattern('/a/:x/caf%C3%A9/:y/*');
  t.deepEqual(parsed.segments, [
    { kind: 'static', value: 'a' },
    { kind: 'param', name: 'x' },
    { kind: 'static', value: 'café' },
    { kind: 'param', name: 'y' },
    { kind: 'wildcard' },
  ]);
  t.deepEqual(parsed.paramNames, ['x', 'y']);
  t.true(parsed.hasWildcard);
  t.deepEqual(parsePathPattern('/').segments, []);
});

test(`accepts ${MAX_PATTERN_LENGTH} characters and ${MAX_PATTERN_SEGMENTS} segments`, (t) => {
  t.is(parsePathPattern('/' + 'a'.repeat(MAX_PATTERN_LENGTH - 1)).source.length, MAX_PATTERN_LENGTH);
  t.is(parsePathPattern('/a'.repeat(MAX_PATTERN_SEGMENTS)).segments.length, MAX_PATTERN_SEGMENTS);
});

const refused: [string, unknown, string][] = [
  ['a number', 42, 'must be a string'],
  ['null', null, 'must be a string'],
  ['an empty string', '', 'must start with "/"'],
  ['no leading slash', 'users', 'must start with "/"'],
  [`${MAX_PATTERN_LENGTH + 1} characters`, '/' + 'a'.repeat(MAX_PATTERN_LENGTH), 'must be at most 1024 characters'],
  [`${MAX_PATTERN_SEGMENTS + 1} segments`, '/a'.repeat(MAX_PATTERN_SEGMENTS + 1), 'must have at most 32 segments'],
  ['a trailing slash', '/users/', 'must not end with "/"'],
  ['an empty segment', '/a//b', 'segment 2 is empty ("//")'],
  ['a leading empty segment', '//a', 'segment 1 is empty ("//")'],
  ['a query', '/a?b=1', 'must not contain a query'],
  ['a fragment', '/a#top', 'must not contain a query'],
  ['a space', '/a b', 'segment 1: character " " is not allowed'],
  ['a colon inside a segment', '/a:b', 'segment 1: character ":" is not allowed'],
  ['a star inside a segment', '/a*', 'segment 1: character "*" is not allowed'],
  ['a raw non-ASCII character', '/é', 'segment 1: character "é" is not allowed'],
  ['a backslash', '/a\\b', 'segment 1: character "\\\\" is not allowed'],
  ['a truncated escape', '/a%2', 'segment 1: malformed percent-encoding'],
  ['a non-hex escape', '/a%zz', 'segment 1: malformed percent-encoding'],
  ['an escape that is not UTF-8', '/%FF', 'segment 1: percent-encoding is not valid UTF-8'],
  ['an encoded slash', '/a%2Fb', 'segment 1: an encoded "/" (%2F) is not allowed'],
  ['an encoded control character', '/%00', 'segment 1: an encoded control character is not allowed'],
  ['a dot segment', '/a/.', 'segment 2: "." and ".." are not allowed'],
  ['a dot-dot segment', '/..', 'segment 1: "." and ".." are not allowed'],
  ['an encoded dot segment', '/%2E%2e', 'segment 1: "." and ".." are not allowed'],
  ['an empty parameter name', '/users/:', 'segment 2: parameter name "" must match'],
  ['a parameter name starting with a digit', '/:1a', 'segment 1: parameter name "1a" must match'],
  ['a hyphen in a parameter name', '/:a-b', 'segment 1: parameter name "a-b" must match'],
  ['a 65-character parameter name', `/:${'p'.repeat(65)}`, 'segment 1: parameter name'],
  ['the reserved name __proto__', '/:__proto__', 'segment 1: parameter name "__proto__" is reserved'],
  ['a repeated parameter name', '/:id/x/:id', 'segment 3: parameter name "id" is repeated'],
  ['a wildcard before the end', '/*/x', 'the wildcard "*" is only allowed as the last segment'],
  ['two wildcards', '/a/*/*', 'the wildcard "*" is only allowed as the last segment'],
];
for (const [label, value, reason] of refused) {
  test(`refuses ${label}`, (t) => {
    const error = t.throws(() => parsePathPattern(value), { instanceOf: SwitchyardError });
    t.is(error.code, 'invalid_argument');
    t.is(error.details.length, 1);
    t.is(error.details[0]?.field, 'path');
    t.true(error.details[0]!.reason.startsWith(reason), `${error.details[0]!.reason} should start with ${reason}`);
  });
}
