// `npm run bench:record -- "<what the run was for>"`: appends the run in
// bench/results/latest.json to the ledger bench/results/history.md, newest
// first: when and where it ran, its BENCH lines as printed (with the peers'
// CPU notes), and each goal met or missed. The latest full run also goes in
// bench/README.md's "Latest results" by hand, with what it means.
import { readFile, writeFile } from 'node:fs/promises';
import { goalOf } from '../harness/goals.js';
import { formatLine, formatPeerNote, type BenchResult } from '../harness/results.js';

interface LatestRun {
  readonly date: string;
  readonly commit: string;
  readonly node: string;
  readonly cpus: string;
  readonly failures: readonly string[];
  readonly results: readonly BenchResult[];
}

const LATEST = new URL('../results/latest.json', import.meta.url);
const HISTORY = new URL('../results/history.md', import.meta.url);

const title = process.argv.slice(2).join(' ').trim();
if (title === '') throw new Error('usage: npm run bench:record -- "<what the run was for>"');
const run = JSON.parse(await readFile(LATEST, 'utf8')) as LatestRun;
const history = await readFile(HISTORY, 'utf8');
// Newest first: the new entry goes before the first run already there.
const firstRun = history.search(/^### /m);
if (firstRun < 0) throw new Error(`${HISTORY.pathname} has no "### " run to put the new one before`);
await writeFile(HISTORY, `${history.slice(0, firstRun)}${entry(run, title)}\n${history.slice(firstRun)}`);
console.log(`recorded ${run.results.length} figures of ${run.commit} in ${HISTORY.pathname}`);

function entry(run: LatestRun, title: string): string {
  const lines = run.results.flatMap((r) => [formatLine(r), formatPeerNote(r)].filter((line): line is string => line !== undefined));
  const goals = run.results.flatMap((r) => {
    const goal = goalOf(r);
    if (goal === undefined) return [];
    const judged = goal.subject === 'ours' ? `ours ${goal.judged.toPrecision(3)} ${r.unit}` : `ratio ${goal.judged.toFixed(4)}`;
    return [`${r.name} ${goal.met ? 'met' : '**missed**'} (${r.goal}: ${judged})`];
  });
  const failed = run.failures.length ? `\n\nFailed to run: ${run.failures.join(', ')}.` : '';
  const goalLine = goals.length ? `\n\nGoals: ${goals.join('; ')}.` : '';
  return `### ${title} at ${run.commit} (${run.date.slice(0, 16).replace('T', ' ')} UTC)\n\n${run.cpus}, Node ${run.node}; recorded by \`npm run bench:record\`.\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`${goalLine}${failed}\n`;
}
