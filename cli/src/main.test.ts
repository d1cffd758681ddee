// `main` in process: the top-level help, a command's help, the version, and an unknown command.
import test from 'ava';
import { Console } from 'node:console';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { COMMANDS, main, USAGE } from './main.js';

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const printed = { stdout: '', stderr: '' };
  const into = (name: keyof typeof printed) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        printed[name] += chunk.toString();
        done();
      },
    });
  const code = await main(argv, {}, new Console({ stdout: into('stdout'), stderr: into('stderr') }));
  return { code, ...printed };
}

test('no command, --help, -h and help print the usage, which names every command', async (t) => {
  for (const argv of [[], ['--help'], ['-h'], ['help']]) t.deepEqual(await run(...argv), { code: 0, stdout: `${USAGE}\n`, stderr: '' });
  for (const name of Object.keys(COMMANDS)) t.regex(USAGE, new RegExp(`^  ${name} `, 'm'));
});

test("help <command> and <command> --help print that command's usage", async (t) => {
  for (const argv of [
    ['help', 'gc'],
    ['gc', '--help'],
  ]) {
    const { code, stdout, stderr } = await run(...argv);
    t.is(code, 0, stderr);
    t.regex(stdout, /^usage: switchyard gc /);
  }
});

test('--version prints the package version', async (t) => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  t.deepEqual(await run('--version'), { code: 0, stdout: `${version}\n`, stderr: '' });
});

test('an unknown command exits 2 with the usage on stderr', async (t) => {
  const { code, stdout, stderr } = await run('serve');
  t.is(code, 2);
  t.is(stdout, '');
  t.is(stderr, `unknown command "serve"\n\n${USAGE}\n`);
});
