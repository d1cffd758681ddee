import test from 'ava';
import { pino } from 'pino';
import { infoLine } from './info-line.js';
import { createLogger, type LogLevel } from './logger.js';

interface Line {
  requestId: string;
  path: string;
  status: number;
  completed: boolean;
  workspace?: string | undefined;
}

const FIELDS = { requestId: 'string', path: 'string', status: 'number', completed: 'boolean', workspace: 'string' } as const;

function capture(level: LogLevel = 'info') {
  const lines: string[] = [];
  const log = createLogger(level, { write: (line: string) => void lines.push(line) }, 'switchyard-test');
  return { log, lines };
}

/** The line with its time set to 0, the one field two writes a moment apart may differ in. */
const timeless = (line: string): string => line.replace(/^\{"level":30,"time":\d+,/, '{"level":30,"time":0,');

const CASES: Line[] = [
  { requestId: 'req_1', path: '/v1/assets/as_1', status: 200, completed: true, workspace: 'ws_1' },
  { requestId: 'req_2', path: '/v1/a"b\\c\n\u0001\u2028é😀/\ud800', status: 404, completed: false, workspace: undefined },
  { requestId: '', path: '', status: 0.125, completed: false },
];

test('a line is the very JSON log.info writes for the same fields and message, undefined fields left out', (t) => {
  for (const values of CASES) {
    const ours = capture();
    const pinos = capture();
    infoLine<Line>(ours.log, 'request "done"', FIELDS)(values);
    pinos.log.info(values, 'request "done"');
    t.is(ours.lines.length, 1);
    t.is(timeless(ours.lines[0]!), timeless(pinos.lines[0]!));
    t.deepEqual(
      JSON.parse(ours.lines[0]!),
      JSON.parse(pinos.lines[0]!.replace(/"time":\d+/, `"time":${(JSON.parse(ours.lines[0]!) as { time: number }).time}`)),
    );
  }
});

test("a child logger's bindings come with its lines, and a logger above info writes none", (t) => {
  const { log, lines } = capture();
  infoLine<Line>(log.child({ requestId: 'shadowed', tenant: 't1' }), 'call', FIELDS)(CASES[0]!);
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  t.is(line['tenant'], 't1');
  t.is(line['service'], 'switchyard-test');
  t.is(line['msg'], 'call');
  const quiet = capture('warn');
  infoLine<Line>(quiet.log, 'request', FIELDS)(CASES[0]!);
  t.deepEqual(quiet.lines, []);
});

test("a destination that takes each line's level from pino (a multistream) gets the line through pino", (t) => {
  const info: string[] = [];
  const errors: string[] = [];
  const streams = pino.multistream([
    { level: 'info', stream: { write: (line: string) => void info.push(line) } },
    { level: 'error', stream: { write: (line: string) => void errors.push(line) } },
  ]);
  const log = createLogger('info', streams, 'switchyard-test');
  infoLine<Line>(log, 'request', FIELDS)(CASES[0]!);
  t.is(info.length, 1);
  t.deepEqual(errors, [], 'an info line is not an error line');
  t.is((JSON.parse(info[0]!) as { requestId: string }).requestId, 'req_1');
});
