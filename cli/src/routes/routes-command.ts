/**
 * `switchyard routes export|diff FILE|apply FILE`: a workspace's routes as
 * code, over the gateway's REST API (SWITCHYARD_URL, SWITCHYARD_TOKEN).
 * Exit codes: 0 done (diff: no changes), 2 diff found changes, 1 any error,
 * a bad command line included (so a pipeline's `diff` never takes one for
 * changes).
 */
import { parseArgs } from 'node:util';
import { createRestClient, SwitchyardRestError, type RestApplyResult, type RestClient, type RestRoute } from '@switchyard/client';
import { CommandExit, type Command, type CommandOutput } from '@switchyard/runtime';
import { hasChanges, planLines, summaryLine } from './plan-lines.js';
import { formatRoutesFile, readRoutesFile, RoutesFileError, type RoutesFile } from './routes-file.js';
import { plannedRevision, savePlan, type PlannedApply } from './saved-plan.js';

export const ROUTES_USAGE = `usage: switchyard routes export [--owner O] [--json]
       switchyard routes diff FILE [--owner O] [--prune] [--out PLAN] [--json]
       switchyard routes apply FILE [--owner O] [--prune] [--dry-run] [--expected-revision N | --plan PLAN] [--json]

A route file is YAML or JSON: {"format": "switchyard.routes/v1", "routes": [...]}
(schema: cli/schemas/switchyard.routes.v1.schema.json). Only the owner's routes
are planned (--owner; none: the routes without an owner); --prune deletes the
owner's routes the file leaves out. export prints the table (one owner's with
--owner) as a route file. diff exits 0 when nothing would change, 2 when
something would, 1 on an error; --out saves its plan, and apply --plan
applies the same file only to the table the plan was made from (a table
changed since is refused: run diff again).

Environment: SWITCHYARD_URL (the gateway, e.g. http://127.0.0.1:8080),
SWITCHYARD_TOKEN (a bearer token with routes:read, and routes:write to apply).`;

const OPTIONS = {
  owner: { type: 'string' },
  prune: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'expected-revision': { type: 'string' },
  out: { type: 'string' },
  plan: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

/** Which options each subcommand takes, beyond --json and --help. */
const ALLOWED: Readonly<Record<string, readonly (keyof Values)[]>> = {
  export: ['owner'],
  diff: ['owner', 'prune', 'out'],
  apply: ['owner', 'prune', 'dry-run', 'expected-revision', 'plan'],
};

export const routesCommand: Command = async (args, env, output) => {
  const { values, positionals } = parseCommandLine(args);
  if (values.help) return void output.log(ROUTES_USAGE);
  const [sub, file, ...extra] = positionals;
  if (sub === undefined || !Object.hasOwn(ALLOWED, sub)) fail(`routes needs export, diff or apply`);
  const needsFile = sub !== 'export';
  if (needsFile ? file === undefined : file !== undefined) fail(needsFile ? `routes ${sub} needs a FILE` : 'routes export takes no FILE');
  if (extra.length > 0) fail(`unexpected ${JSON.stringify(extra[0])}`);
  for (const name of Object.keys(values) as (keyof Values)[])
    if (name !== 'json' && !ALLOWED[sub]!.includes(name)) fail(`routes ${sub} takes no --${name}`);
  if (values.plan !== undefined && values['expected-revision'] !== undefined) fail('--plan and --expected-revision exclude each other');
  const { client, url } = clientOf(env);
  try {
    if (sub === 'export') return await exportRoutes(client, values, output);
    const routes = await readRoutesFile(file!);
    const planned: PlannedApply = { url, owner: values.owner, prune: values.prune === true, file: routes };
    const expectedRevision =
      values.plan !== undefined
        ? await plannedRevision(values.plan, planned)
        : values['expected-revision'] === undefined
          ? undefined
          : revisionOf(values['expected-revision']);
    const result = await applyFile(
      client,
      routes,
      sub === 'diff' ? { ...values, 'dry-run': true } : values,
      expectedRevision,
      values.plan,
      output,
    );
    if (values.out !== undefined) await savePlan(values.out, planned, result.revision, summaryLine(result, false));
    if (sub === 'diff' && hasChanges(result)) throw new CommandExit(2);
  } catch (error) {
    throw explainFailure(error);
  }
};

async function exportRoutes(client: RestClient, values: Values, output: CommandOutput): Promise<void> {
  const routes: RestRoute[] = [];
  let pageToken = '';
  do {
    const page = await client.listRoutes({ pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
    routes.push(...page.routes);
    pageToken = page.nextPageToken;
  } while (pageToken);
  const owned = values.owner === undefined ? routes : routes.filter((route) => route.owner === values.owner);
  output.log(formatRoutesFile(owned, values.json === true).trimEnd());
}

async function applyFile(
  client: RestClient,
  file: RoutesFile,
  values: Values,
  expectedRevision: number | undefined,
  planPath: string | undefined,
  output: CommandOutput,
): Promise<RestApplyResult> {
  const dryRun = values['dry-run'] === true;
  let result;
  try {
    result = await client.applyRoutes({
      routes: file.routes,
      ...(values.owner === undefined ? {} : { owner: values.owner }),
      prune: values.prune === true,
      dryRun,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
    });
  } catch (error) {
    if (error instanceof SwitchyardRestError && error.code === 'aborted' && planPath !== undefined)
      throw new CommandExit(
        1,
        `aborted: the routes have changed since the plan in ${planPath} was made at revision ${expectedRevision} (${error.message}); ` +
          'nothing was written: run `switchyard routes diff` again, review, and apply its new plan',
      );
    if (error instanceof SwitchyardRestError && error.details.length > 0) throw new CommandExit(1, refusal(error, file));
    throw error;
  }
  if (values.json) output.log(JSON.stringify(result, null, 2));
  else for (const line of [...planLines(result), summaryLine(result, !dryRun)]) output.log(line);
  return result;
}

/** The service's refusal, each detail at its place in the file when it names an entry. */
function refusal(error: SwitchyardRestError, file: RoutesFile): string {
  const lines = error.details.map((detail) =>
    detail.field?.startsWith('routes')
      ? `${file.locate(detail.field)}: ${detail.field}: ${detail.reason}`
      : `${detail.field ?? ''}: ${detail.reason}`,
  );
  return [`${error.code}: ${error.message}`, ...lines].join('\n');
}

function parseCommandLine(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return fail((error as Error).message);
  }
}

function clientOf(env: NodeJS.ProcessEnv): { client: RestClient; url: string } {
  const url = env['SWITCHYARD_URL'];
  if (!url) fail('SWITCHYARD_URL is not set: the gateway to talk to, e.g. http://127.0.0.1:8080');
  if (!/^https?:\/\//.test(url)) fail(`SWITCHYARD_URL is not an http(s) URL: ${JSON.stringify(url)}`);
  const token = env['SWITCHYARD_TOKEN'];
  return { client: createRestClient({ baseUrl: url, ...(token ? { token } : {}) }), url };
}

function revisionOf(text: string): number {
  if (!/^\d{1,15}$/.test(text)) fail(`--expected-revision must be a whole number, 0 or more; got ${JSON.stringify(text)}`);
  return Number(text);
}

/** A bad command line: exit 1 (not 2, which `diff` keeps for changes), with the usage. */
function fail(message: string): never {
  throw new CommandExit(1, `${message}\n${ROUTES_USAGE}`);
}

function explainFailure(error: unknown): unknown {
  if (error instanceof RoutesFileError) return new CommandExit(1, error.message);
  if (error instanceof SwitchyardRestError) return new CommandExit(1, `${error.code}: ${error.message}`);
  if (error instanceof TypeError && /fetch failed/.test(error.message))
    return new CommandExit(1, `cannot reach SWITCHYARD_URL: ${String((error.cause as Error | undefined)?.message ?? error.message)}`);
  return error;
}
