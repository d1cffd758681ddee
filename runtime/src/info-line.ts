import fastJson from 'fast-json-stringify';
import { pino, type DestinationStream, type Logger } from 'pino';

/** The JSON type of each field of a line, as its TypeScript type says. */
export type LineFields<T> = {
  readonly [K in keyof T]-?: NonNullable<T[K]> extends string
    ? 'string'
    : NonNullable<T[K]> extends number
      ? 'number'
      : NonNullable<T[K]> extends boolean
        ? 'boolean'
        : never;
};

/**
 * A writer of one kind of `info` line with fixed fields, for the lines logged
 * for every request: the same JSON that `log.info(values, message)` writes
 * from a logger of createLogger (level, time, the logger's bindings, the
 * fields in the order given, `msg`), made by a serializer compiled for those
 * fields (fast-json-stringify) and written to the logger's destination. An
 * undefined field is left out, as pino does.
 *
 * pino's own serializer walks every logged object with for-in and keyed
 * lookups shared by all call sites, which the server's mix of objects makes
 * megamorphic: a line costs far more in the server than measured alone.
 * Justified by rest-get-asset (bench/hand-written-parts.md#info-line).
 *
 * Not for values that may hold secrets: no redaction runs here. The
 * logger's bindings are taken once, here. A value the compiled serializer
 * refuses (NaN) goes through pino instead.
 */
export function infoLine<T extends object>(log: Logger, message: string, fields: LineFields<T>): (values: T) => void {
  const properties = Object.fromEntries(Object.entries(fields).map(([name, type]) => [name, { type }]));
  const serialize = fastJson({ type: 'object', properties }) as (values: T) => string;
  const destination = (log as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
  if (destination === undefined) throw new Error('infoLine: not a pino logger');
  // A destination that reads each line's level from pino (a multistream) gets its lines through pino.
  if ((destination as unknown as Record<symbol, unknown>)[pino.symbols.needsMetadataGsym] === true)
    return (values) => log.info(values as object, message);
  const bindings = JSON.stringify(log.bindings()).slice(1, -1);
  const head = `{"level":${log.levels.values['info']},"time":`;
  const afterTime = bindings === '' ? '' : `,${bindings}`;
  const tail = `,"msg":${JSON.stringify(message)}}\n`;
  return (values) => {
    if (!log.isLevelEnabled('info')) return;
    let body: string;
    try {
      body = serialize(values);
    } catch {
      return log.info(values as object, message);
    }
    destination.write(head + Date.now() + afterTime + (body.length > 2 ? `,${body.slice(1, -1)}` : '') + tail);
  };
}
