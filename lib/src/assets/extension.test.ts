import test from 'ava';
import { extensions as mimeExtensions } from 'mime-types';
import { extensionFor } from './extension.js';

test('extensions come from the mime-types table', (t) => {
  t.is(extensionFor('image/png'), 'png');
  t.is(extensionFor('image/jpeg'), 'jpg');
  t.is(extensionFor('image/svg+xml'), 'svg');
  t.is(extensionFor('application/pdf'), 'pdf');
  t.is(extensionFor('application/vnd.openxmlformats-officedocument.wordprocessingml.document'), 'docx');
  t.is(extensionFor('text/plain'), 'txt');
  t.is(extensionFor('text/csv'), 'csv');
  t.is(extensionFor('application/json'), 'json');
  t.is(extensionFor('audio/wav'), 'wav');
  t.is(extensionFor('video/webm'), 'webm');
});

test('common extensions are preferred where mime-db lists a rarer one first', (t) => {
  t.is(extensionFor('audio/mpeg'), 'mp3');
  t.is(extensionFor('audio/ogg'), 'ogg');
  t.is(extensionFor('video/quicktime'), 'mov');
  for (const type of ['audio/mpeg', 'audio/ogg', 'video/quicktime']) t.true(mimeExtensions[type]!.includes(extensionFor(type)));
});

test('unknown types and application/octet-stream get bin', (t) => {
  t.is(extensionFor('application/octet-stream'), 'bin');
  t.is(extensionFor('application/x-unheard-of'), 'bin');
  t.is(extensionFor('not a type'), 'bin');
});
