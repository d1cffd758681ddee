// Every code sample of a package README (`<workspace>/README.md`) is run by packages.test.ts
// in the project that installed the packed tarballs, or is on support/readme-samples.ts's
// NOT_RUN list with the reason. A new sample fails here until one of the two holds.
import test from 'ava';
import { samplesOf } from '../support/samples.js';
import { commandLines } from '../support/shell-example.js';
import { DISPATCH_SERVER, NOT_RUN, packageReadmes, PRINTING_PROGRAMS, RUN_COMMANDS } from './support/readme-samples.js';

const RUN_PROGRAMS = [...PRINTING_PROGRAMS, DISPATCH_SERVER];
const key = (page: string, text: string) => `${page}: ${text}`;

test('every sample of the package READMEs is run by packages.test.ts, or listed as not run', async (t) => {
  const run = new Set([
    ...RUN_PROGRAMS.map((program) => key(program.page, program.first)),
    ...RUN_COMMANDS.map((printed) => key(printed.page, printed.command)),
  ]);
  const notRun = new Set(NOT_RUN.map((entry) => key(entry.page, entry.command)));
  const unaccounted: string[] = [];
  const seen = new Set<string>();
  for (const page of await packageReadmes()) {
    for (const sample of await samplesOf(page)) {
      // A shell block is accounted for line by line; any other block by its first line.
      const names = sample.lang === 'sh' ? commandLines(sample.body) : [sample.first];
      for (const name of names.map((text) => key(page, text))) {
        seen.add(name);
        if (!run.has(name) && !notRun.has(name)) unaccounted.push(`${name} (\`\`\`${sample.lang}, under "${sample.heading}")`);
      }
    }
  }
  t.deepEqual(
    unaccounted,
    [],
    'samples no test runs: run them in packages.test.ts (support/readme-samples.ts), or list them in NOT_RUN with the reason',
  );
  const stale = [...run, ...notRun].filter((name) => !seen.has(name));
  t.deepEqual(stale, [], 'support/readme-samples.ts names samples that are gone: take them off its lists');
});
