// One schema per app for its environment: a zod schema per variable, plus
// checks across variables. Parsed once at start-up into a frozen object; every
// bad variable is reported at once, each naming its variable (docs/configuration.md).
import { z } from 'zod';
import { SwitchyardError, type ErrorDetail } from '@switchyard/core';

/** The variables of an app: name → zod schema of its (non-empty) string value. */
export type EnvShape = Readonly<Record<string, z.ZodType<unknown, string | undefined>>>;

/** The parsed values: a variable whose schema failed is `undefined` when checks see it. */
export type EnvValues<Shape extends EnvShape> = { readonly [Name in keyof Shape]: z.output<Shape[Name]> };

/** Refuses a variable with a reason; `showValue: false` leaves its value out of the message. */
export type Refuse = (variable: string, reason: string, options?: { showValue?: boolean }) => void;

/** A rule across variables (one requires another, two exclude each other). */
export type EnvCheck = (values: Readonly<Record<string, unknown>>, refuse: Refuse) => void;

export interface EnvSchema<Shape extends EnvShape> {
  readonly shape: Shape;
  readonly checks: readonly EnvCheck[];
}

export function envSchema<Shape extends EnvShape>(shape: Shape, ...checks: EnvCheck[]): EnvSchema<Shape> {
  return Object.freeze({ shape, checks: Object.freeze(checks) });
}

/** Both apps' variables, for a process that runs both (`switchyard start`); a name in both takes `b`'s schema. */
export function mergeEnvSchemas<A extends EnvShape, B extends EnvShape>(a: EnvSchema<A>, b: EnvSchema<B>): EnvSchema<Omit<A, keyof B> & B> {
  return envSchema({ ...a.shape, ...b.shape }, ...a.checks, ...b.checks);
}

/** How a value is shown in a refusal: a secret not at all, a URL with its password masked. */
const displays = new WeakMap<z.ZodType, (raw: string) => string | undefined>();

/** Marks a variable's schema so refusals show `display(raw)` instead of the raw value (undefined: nothing). */
export function shownAs<T extends z.ZodType>(schema: T, display: (raw: string) => string | undefined): T {
  displays.set(schema, display);
  return schema;
}

/** The display of a schema or of the one it wraps (`.optional()`, `.default()`). */
function displayOf(schema: z.ZodType): ((raw: string) => string | undefined) | undefined {
  for (let current: unknown = schema; current instanceof z.ZodType; ) {
    const display = displays.get(current);
    if (display) return display;
    current = 'unwrap' in current && typeof current.unwrap === 'function' ? (current as { unwrap(): unknown }).unwrap() : undefined;
  }
  return undefined;
}

/**
 * Parses the variables of `schema` from `env` (unset and empty are the same)
 * into a deep-frozen object, or throws one `invalid_argument` SwitchyardError
 * whose message lists every refused variable, in the schema's order.
 */
export function parseEnv<Shape extends EnvShape>(schema: EnvSchema<Shape>, env: NodeJS.ProcessEnv): EnvValues<Shape> {
  const problems = new Map<string, string>();
  const shown = (name: string, showValue = true): string => {
    const raw = env[name] ?? '';
    if (!showValue) return '';
    const display = displayOf(schema.shape[name]!);
    const value = display ? display(raw) : raw;
    return value === undefined ? '' : `${JSON.stringify(value)} `;
  };
  const refuse: Refuse = (name, reason, options) => {
    if (!problems.has(name)) problems.set(name, `${shown(name, options?.showValue)}${reason}`);
  };

  const values: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(schema.shape)) {
    const raw = env[name] === '' ? undefined : env[name];
    const result = variable.safeParse(raw);
    if (result.success) values[name] = result.data;
    else refuse(name, result.error.issues[0]?.message ?? 'is not valid', { showValue: raw !== undefined });
  }
  for (const check of schema.checks) check(values, refuse);

  if (problems.size > 0) throw configurationError(Object.keys(schema.shape), problems);
  return deepFreeze(values) as EnvValues<Shape>;
}

function configurationError(order: readonly string[], problems: ReadonlyMap<string, string>): SwitchyardError {
  const details: ErrorDetail[] = order.filter((name) => problems.has(name)).map((field) => ({ field, reason: problems.get(field)! }));
  const lines = details.map((detail) => `  ${detail.field}: ${detail.reason}`).join('\n');
  return new SwitchyardError('invalid_argument', `invalid configuration:\n${lines}`, details);
}

/** Freezes an object and everything in it, so configuration cannot change after start-up. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
