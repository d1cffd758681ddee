// typescript-eslint with type information over every file that `npm run typecheck` checks; `npm run lint:ts` runs it
// from the repository's root with --config. It and its packages live here, in an install of their own (see
// package.json), because typescript-eslint needs TypeScript 6: the project's typescript 7 has no JavaScript compiler
// API. In the root's install, npm would hoist ts-api-utils (its peer range has no upper bound) beside typescript 7.
import js from '@eslint/js';
import { fileURLToPath } from 'node:url';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Generated code, build output (test-build/: the compiled test tree), benchmark results; JavaScript files are in no tsconfig, so no types to check them with.
  globalIgnores(['**/gen/**', '**/dist/**', '**/node_modules/**', 'test-build/**', 'bench/results/**', '**/*.js', '**/*.mjs', '**/*.cjs']),
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // Two programs rather than the project service: the root tsconfig.json is a solution whose packages do not hold
        // test/, bench/ or scripts/; tsconfig.test.json holds them all (and the packages' sources). The console comes
        // first: its files are in tsconfig.test.json too, but only console/tsconfig.json gives them the DOM.
        project: ['console/tsconfig.json', 'tsconfig.test.json'],
        tsconfigRootDir: fileURLToPath(new URL('../..', import.meta.url)),
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Ports are async interfaces: an implementation that needs no await is still async (149 such functions, no bugs).
      '@typescript-eslint/require-await': 'off',
      // `Promise.all(list.map((x) => (x.open ? x.close() : undefined)))` is the house idiom for "stop what started".
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // A caught error is passed on as it came (`unknown`): wrapping it would change what callers see.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Factories return `{ close, stop, … }` closures typed with method syntax; destructuring them is safe here.
      '@typescript-eslint/unbound-method': 'off',
      // `_`-prefixed names say "not used": rest-destructuring to drop fields, parameters a signature requires.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A `let` read by a closure (a teardown, a callback) written before its one assignment stays a `let`: as a const, the
      // closure would throw if it ran first.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Validators of text and paths match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // V8 gives every object literal with a getter or setter a hidden class of its own, in the old generation, and on a
    // request's path those kept each request's objects alive through young-generation GCs (bench/hand-written-parts.md
    // #no-literal-getters). A class puts its accessors on the prototype.
    // The client's watches are made once each and keep their closures (a literal is clearer there).
    files: ['{lib,runtime,service,gateway,dispatch,cli}/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test-support.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ObjectExpression > Property[kind='get'], ObjectExpression > Property[kind='set']",
          message: 'An object literal with an accessor gets a hidden class of its own each time it is made: use a class.',
        },
      ],
    },
  },
);
