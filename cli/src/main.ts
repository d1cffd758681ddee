import { readFileSync } from 'node:fs';
import { runCommand, UsageError, type Command, type CommandOutput } from '@switchyard/runtime';

interface CommandEntry {
  readonly summary: string;
  /** Loaded on use: `switchyard token` need not load the gRPC server, the AWS SDK or the gateway. */
  readonly load: () => Promise<Command>;
}

/** Every subcommand, with the one line `switchyard --help` shows for it. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.freeze({
  start: {
    summary: 'the all-in-one server: migrations, gRPC service, REST gateway and files (npm start)',
    load: async () => (await import('./commands/start.js')).startCommand,
  },
  service: { summary: 'the gRPC service alone', load: async () => (await import('@switchyard/service')).serviceCommand },
  gateway: {
    summary: 'the REST gateway alone, in front of SERVICE_URL',
    load: async () => (await import('@switchyard/gateway')).gatewayCommand,
  },
  token: { summary: 'print a bearer token the server accepts', load: async () => (await import('@switchyard/service')).tokenCommand },
  keys: {
    summary: "create, list and revoke a workspace's API keys in the server's database",
    load: async () => (await import('@switchyard/service')).keysCommand,
  },
  migrate: { summary: 'apply database migrations and exit', load: async () => (await import('@switchyard/service')).migrateCommand },
  gc: {
    summary: 'remove blobs no record points at, and partial writes a crash left',
    load: async () => (await import('@switchyard/service')).gcCommand,
  },
  routes: {
    summary: 'routes as code: export the table, diff or apply a route file (SWITCHYARD_URL)',
    load: async () => (await import('./routes/routes-command.js')).routesCommand,
  },
  'backfill-metadata': {
    summary: 'read the media facts of assets stored before they were read at upload',
    load: async () => (await import('@switchyard/service')).backfillMetadataCommand,
  },
});

export const USAGE = `usage: switchyard <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(19)}${summary}`)
  .join('\n')}

\`switchyard <command> --help\` tells more. Configuration comes from the
environment (HOST, PORT, GRPC_PORT, DATA_DIR, DATABASE_URL, BLOB_STORE, ...).`;

/**
 * Runs `switchyard <argv>` with `env` as its whole environment, printing to
 * `output`, and resolves with the exit code: 0, 1 for a failure, 2 for a bad
 * command line (the failure's one line is on `output`'s stderr). A server
 * command resolves once it is listening. Tests call it in process.
 */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput = console): Promise<number> {
  return runCommand(async () => {
    const [name, ...args] = argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' ? args[0] : undefined;
      if (topic !== undefined && Object.hasOwn(COMMANDS, topic)) return (await COMMANDS[topic]!.load())(['--help'], env, output);
      return void output.log(USAGE);
    }
    if (name === '--version' || name === '-v') return void output.log(version());
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (command === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    await (await command.load())(args, env, output);
  }, output);
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
