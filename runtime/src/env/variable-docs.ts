// What each variable means, kept beside the schemas as plain records (one per
// app, `*_VARIABLE_DOCS`) rather than wrapped around every schema, so a
// config.ts stays a readable list of rules. docs/configuration.md is generated
// from these records and the schemas (scripts/gen-config-docs.ts), and a test
// fails when a schema variable has no record or the page differs.
import { z } from 'zod';
import type { EnvShape } from './env-schema.js';

/** The processes whose variables are documented, by the command that starts them. */
export const DOCUMENTED_PROCESSES = ['start', 'service', 'gateway'] as const;
export type DocumentedProcess = (typeof DOCUMENTED_PROCESSES)[number];

/** A default as the docs show it (Markdown), the same for every process or one per process. */
export type ShownDefault = string | Readonly<Partial<Record<DocumentedProcess, string>>>;

export interface VariableDoc {
  /** What the variable does, in Markdown (one table cell: no line breaks). */
  readonly meaning: string;
  /**
   * The default as shown, where the schema's own `.default()` cannot say it:
   * computed (the number of CPUs), applied later (twice the rate), different
   * per process, or none (`required`). Unset: the schema's default, else `unset`.
   */
  readonly default?: ShownDefault;
  /** The processes whose tables list it; unset: every process whose schema reads it. */
  readonly appliesTo?: readonly DocumentedProcess[];
}

/** An app's documented variables: at most one record per variable of `Shape`. */
export type VariableDocs<Shape extends EnvShape = EnvShape> = { readonly [Name in keyof Shape]?: VariableDoc };

/**
 * The value a variable's schema gives when it is unset (the `.default()` inside
 * `.optional()`, `.transform()` and the like), or undefined when it has none.
 */
export function schemaDefault(schema: z.ZodType): { readonly value: unknown } | undefined {
  for (let current: unknown = schema; current instanceof z.ZodType; ) {
    const def = current.def as { type: string; defaultValue?: unknown; innerType?: unknown; in?: unknown };
    if (def.type === 'default') return { value: def.defaultValue };
    current = def.type === 'pipe' ? def.in : def.innerType;
  }
  return undefined;
}
