/**
 * A diff's plan saved for the apply that follows it (`routes diff FILE --out
 * PLAN`, then `routes apply FILE --plan PLAN`), as Terraform's `plan -out`:
 * the apply goes through only against the table the plan was made from (its
 * revision, sent as expectedRevision), with the same file, gateway, owner and
 * prune. A stale plan is refused, never applied over someone else's change.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { CommandExit } from '@switchyard/runtime';
import type { RoutesFile } from './routes-file.js';

export const PLAN_FORMAT = 'switchyard.plan/v1';

export interface SavedPlan {
  readonly format: typeof PLAN_FORMAT;
  /** The gateway it was made against (SWITCHYARD_URL). */
  readonly url: string;
  /** `null`: the routes without an owner. */
  readonly owner: string | null;
  readonly prune: boolean;
  /** The workspace's route revision the plan was made from. */
  readonly revision: number;
  /** sha256 of the file's routes as read (not its bytes: a comment or a reformat keeps the plan). */
  readonly routes: string;
  /** The plan's summary line, for people reading the file. */
  readonly summary: string;
}

/** What a plan is checked against: the apply's own command line. */
export interface PlannedApply {
  readonly url: string;
  readonly owner: string | undefined;
  readonly prune: boolean;
  readonly file: RoutesFile;
}

export function routesDigest(file: RoutesFile): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(file.routes)).digest('hex')}`;
}

export async function savePlan(path: string, planned: PlannedApply, revision: number, summary: string): Promise<void> {
  const plan: SavedPlan = {
    format: PLAN_FORMAT,
    url: planned.url,
    owner: planned.owner ?? null,
    prune: planned.prune,
    revision,
    routes: routesDigest(planned.file),
    summary,
  };
  try {
    await writeFile(path, `${JSON.stringify(plan, null, 2)}\n`);
  } catch (error) {
    throw new CommandExit(1, `${path}: cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** The plan at `path` if it was made for exactly this apply; else exit 1 saying what differs. Answers its revision. */
export async function plannedRevision(path: string, planned: PlannedApply): Promise<number> {
  const plan = await readPlan(path);
  const mismatch = (what: string) => new CommandExit(1, `${path}: ${what}; run \`switchyard routes diff FILE --out ${path}\` again`);
  if (plan.url !== planned.url) throw mismatch(`the plan was made against ${plan.url}, not SWITCHYARD_URL ${planned.url}`);
  if (plan.owner !== (planned.owner ?? null))
    throw mismatch(`the plan was made ${plan.owner === null ? 'without --owner' : `with --owner ${plan.owner}`}`);
  if (plan.prune !== planned.prune) throw mismatch(`the plan was made ${plan.prune ? 'with' : 'without'} --prune`);
  if (plan.routes !== routesDigest(planned.file)) throw mismatch('the file has changed since the plan was made');
  return plan.revision;
}

async function readPlan(path: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CommandExit(1, `${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch {
    throw new CommandExit(1, `${path}: not a plan (not JSON); make one with \`switchyard routes diff FILE --out ${path}\``);
  }
  if (!isSavedPlan(plan)) throw new CommandExit(1, `${path}: not a ${PLAN_FORMAT} plan`);
  return plan;
}

function isSavedPlan(value: unknown): value is SavedPlan {
  if (typeof value !== 'object' || value === null) return false;
  const plan = value as Record<string, unknown>;
  return (
    plan['format'] === PLAN_FORMAT &&
    typeof plan['url'] === 'string' &&
    (plan['owner'] === null || typeof plan['owner'] === 'string') &&
    typeof plan['prune'] === 'boolean' &&
    Number.isSafeInteger(plan['revision']) &&
    (plan['revision'] as number) >= 0 &&
    typeof plan['routes'] === 'string'
  );
}
