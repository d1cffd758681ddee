import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './run-command.js';

/** The options of one command, as `node:util` parseArgs takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

type Config<O extends CommandOptions> = { args: string[]; options: O & typeof HELP; strict: true; allowPositionals: false };

/** The parsed values of a command's options, `help` included. */
export type CommandValues<O extends CommandOptions> = ReturnType<typeof parseArgs<Config<O>>>['values'];

/**
 * Parses a command's options strictly (no positionals, no unknown flags), with
 * `--help`/`-h` added to every command. A bad command line is a UsageError
 * that carries the usage text.
 */
export function parseCommandArgs<O extends CommandOptions>(args: readonly string[], options: O, usage: string): CommandValues<O> {
  const config: Config<O> = { args: [...args], options: { ...options, ...HELP }, strict: true, allowPositionals: false };
  try {
    return parseArgs(config).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
}
