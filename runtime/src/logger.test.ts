import test from 'ava';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('info', destination), lines };
}

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

test('credentials and header sets are censored at the top and inside logged errors, requests and metadata', (t) => {
  const { log, lines } = capture();
  const failure = Object.assign(new Error('upstream refused'), {
    headers: { authorization: `Bearer ${TOKEN}` },
    cause: { token: TOKEN },
    $response: { headers: { 'set-cookie': TOKEN } },
    metadata: { authorization: TOKEN },
  });
  log.info({ authorization: `Bearer ${TOKEN}`, token: TOKEN, secret: TOKEN, headers: { cookie: TOKEN } }, 'top level');
  log.error({ err: failure }, 'an error');
  log.info({ req: { headers: { authorization: TOKEN } }, metadata: { authorization: TOKEN } }, 'a request');
  log.child({ requestId: 'r1' }).info({ token: TOKEN }, 'through a child');
  const written = JSON.stringify(lines);
  t.false(written.includes('c2lnbmF0dXJl'), written);
  t.is(lines.length, 4);
  t.is(lines[0]!['authorization'], '[redacted]');
  t.is((lines[1]!['err'] as { message: string }).message, 'upstream refused', 'the rest of the error stays');
  t.is(lines[3]!['requestId'], 'r1');
});
