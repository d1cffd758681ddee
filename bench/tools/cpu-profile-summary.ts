// `tsx bench/tools/cpu-profile-summary.ts <file.cpuprofile> [top] [skipSeconds]`: self
// time by function and by package/file, to read a `--cpu-prof` profile without
// DevTools; skipSeconds drops the start (module loading, JIT warm-up).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, skipArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

const skipMicros = Number(skipArg ?? 0) * 1e6;
const selfMicros = new Map<number, number>();
let clock = 0;
profile.samples.forEach((id, i) => {
  clock += profile.timeDeltas[i] ?? 0;
  if (clock >= skipMicros) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);

/** node_modules/<pkg> or the project-relative file, so costs group by who owns them. */
function owner(url: string): string {
  if (!url) return '(native/idle)';
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\/.*?\/(lib|service|gateway|bench)\//, '$1/');
}

function report(title: string, key: (node: ProfileNode) => string): void {
  const sums = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (node) sums.set(key(node), (sums.get(key(node)) ?? 0) + micros);
  }
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [name, micros] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}

report('self time by owner', (n) => owner(n.callFrame.url));
report(
  'self time by function',
  (n) => `${n.callFrame.functionName || '(anonymous)'}  ${owner(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`,
);
