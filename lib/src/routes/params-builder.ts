/**
 * Builds a match's params object from the bounds a trie walk left behind. The
 * builder is compiled to an object literal with the route's parameter names,
 * so every match of a route makes an object of one fixed shape in one step,
 * instead of adding keys one by one.
 *
 * Written so for speed: justified by lib-match-route (bench/hand-written-parts.md#params-builder).
 * Builders are shared by routes with the same names, so a table rebuild compiles each
 * shape once. Where code generation from strings is refused (a browser page
 * under a CSP without 'unsafe-eval', node --disallow-code-generation-from-strings)
 * the builder is the loop; that is found out once.
 */
export type ParamsBuilder = (path: string, starts: Int32Array, ends: Int32Array, wildcardStart: number) => Record<string, string>;

/** Distinct shapes kept; past this the cache starts over (tables keep the builders they already hold). */
const MAX_SHAPES = 1024;
const builders = new Map<string, ParamsBuilder>();
let codeGeneration: boolean | undefined;

/** `names` are validated parameter names (identifiers); `*` holds a wildcard's rest. */
export function paramsBuilder(names: readonly string[], hasWildcard: boolean): ParamsBuilder {
  // A quoted "__proto__" key in an object literal would set the prototype, not a parameter.
  if (names.includes('__proto__')) throw new Error('"__proto__" is not a parameter name');
  const shape = `${names.join('/')}${hasWildcard ? '/*' : ''}`;
  let builder = builders.get(shape);
  if (builder === undefined) {
    if (builders.size >= MAX_SHAPES) builders.clear();
    codeGeneration ??= allowsCodeGeneration();
    builder = codeGeneration ? compiled(names, hasWildcard) : looping(names, hasWildcard);
    builders.set(shape, builder);
  }
  return builder;
}

function compiled(names: readonly string[], hasWildcard: boolean): ParamsBuilder {
  const fields = names.map((name, k) => `${JSON.stringify(name)}: path.slice(starts[${k}], ends[${k}])`);
  if (hasWildcard) fields.push('"*": path.slice(wildcardStart)');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: a builder compiled for this shape of route
  return new Function('path', 'starts', 'ends', 'wildcardStart', `return { ${fields.join(', ')} };`) as ParamsBuilder;
}

function looping(names: readonly string[], hasWildcard: boolean): ParamsBuilder {
  return (path, starts, ends, wildcardStart) => {
    const params: Record<string, string> = {};
    for (let k = 0; k < names.length; k++) params[names[k]!] = path.slice(starts[k], ends[k]);
    if (hasWildcard) params['*'] = path.slice(wildcardStart);
    return params;
  };
}

/** False only when the runtime refuses code generation from strings (an EvalError); anything else is a bug and thrown. */
function allowsCodeGeneration(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- probes whether the runtime allows the compiled builders
    new Function('return 1');
    return true;
  } catch (error) {
    if (error instanceof EvalError) return false;
    throw error;
  }
}
