import test from 'ava';
import { SwitchyardError } from '@switchyard/core';
import { assetToMessage, fileInfoToMessage, optional, rangeFromRequest, routeToMessage } from './convert.js';

const request = (rangeStart?: number, rangeEnd?: number) => ({ path: 'p', infoOnly: false, query: '', rangeStart, rangeEnd });

test('no range fields means the whole file', (t) => {
  t.is(rangeFromRequest(request()), undefined);
});

test('open-ended ranges', (t) => {
  t.deepEqual(rangeFromRequest(request(10, 19)), { start: 10, end: 19 });
  t.deepEqual(rangeFromRequest(request(10)), { start: 10, end: Number.MAX_SAFE_INTEGER });
  t.deepEqual(rangeFromRequest(request(undefined, 9)), { start: 0, end: 9 });
});

for (const [start, end, field] of [
  [-1, 5, 'range_start'],
  [0, -2, 'range_end'],
  [10, 9, 'range_end'],
  [0.5, 9, 'range_start'],
] as const) {
  test(`refuses the range ${start}-${end}`, (t) => {
    const error = t.throws(() => rangeFromRequest(request(start, end)), { instanceOf: SwitchyardError });
    t.is(error?.code, 'invalid_argument');
    t.is(error?.details[0]?.field, field);
  });
}

test('records become messages field by field', (t) => {
  const createdAt = new Date('2026-01-02T03:04:05.678Z');
  t.deepEqual(
    routeToMessage({
      id: 'rt_1',
      method: 'GET',
      owner: 'team',
      path: '/a/:b',
      middleware: ['auth'],
      handler: 'h',
      createdAt,
      updatedAt: createdAt,
      revision: 7,
    }),
    {
      id: 'rt_1',
      method: 'GET',
      path: '/a/:b',
      middleware: ['auth'],
      handler: 'h',
      createdAt,
      updatedAt: createdAt,
      revision: 7,
      owner: 'team',
    },
  );
  const asset = assetToMessage({
    id: 'as_1',
    type: 'image/png',
    size: 3,
    url: 'http://cdn/x.png',
    uploadedAt: createdAt,
    createdAt,
    label: 'l',
    sha256: 'ab',
    width: 2,
    height: undefined,
    visibility: 'private',
    name: 'Übersicht.png',
  });
  t.is(asset.visibility, 'private');
  t.is(asset.name, 'Übersicht.png');
  t.is(asset.width, 2);
  t.is(asset.height, undefined);
  t.is(asset.uploadedAt, createdAt);
});

test("a file's info carries the name to save it as", (t) => {
  const uploadedAt = new Date('2026-01-02T03:04:05.678Z');
  const info = fileInfoToMessage({
    type: 'image/png',
    size: 3,
    sha256: 'ab',
    uploadedAt,
    visibility: 'public',
    name: 'Übersicht.png',
    range: { start: 0, end: 2 },
  });
  t.deepEqual(info, {
    type: 'image/png',
    size: 3,
    sha256: 'ab',
    uploadedAt,
    rangeStart: 0,
    rangeEnd: 2,
    visibility: 'public',
    name: 'Übersicht.png',
  });
});

test('empty strings on the wire mean absent', (t) => {
  t.is(optional(''), undefined);
  t.is(optional('a.png'), 'a.png');
});
