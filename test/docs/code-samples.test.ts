// Every command and code sample of README.md and docs/ is run by a test, or is on the short
// list below of samples not yet run, with the reason. A new sample fails here until a test runs
// it (inside markers a test reads, or under a heading a test reads) or it joins that list.
// docs/dispatch.md is left to its own tests for now.
import test from 'ava';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../support/cli.js';
import { samplesOf } from '../support/samples.js';

/** Sections between `<!-- name:start -->` and `<!-- name:end -->`, and the test that runs their samples. */
const RUN_BETWEEN_MARKERS: Record<string, string> = {
  walkthrough: 'test/rest/walkthrough.test.ts',
  taste: 'test/rest/walkthrough.test.ts',
  embed: 'test/readme.test.ts',
  client: 'test/rest/client-example.test.ts',
  'scale-example': 'test/scale/support/deployment.ts',
  'split-example': 'test/docs/operations-split.test.ts',
};

/** Samples a test finds by their page and heading. */
const RUN_UNDER_HEADING = [
  { page: 'docs/grpc.md', heading: 'Health and reflection', by: 'test/rest/doc-samples.test.ts' },
  { page: 'docs/routes.md', heading: 'Matching in process', by: 'test/rest/doc-samples.test.ts' },
  { page: 'docs/client.md', heading: 'Large files: resumableUpload', by: 'test/rest/doc-samples.test.ts' },
  { page: 'docs/uploads.md', heading: 'tus at /v1/uploads', by: 'test/rest/doc-samples.test.ts' },
  { page: 'docs/webhooks.md', heading: 'Events and payloads', by: 'test/docs/webhook-samples.test.ts' },
  { page: 'docs/webhooks.md', heading: 'Signatures (Standard Webhooks 1.0)', by: 'test/docs/webhook-samples.test.ts' },
  { page: 'docs/webhooks.md', heading: 'Receivers in Node', by: 'test/docs/webhook-samples.test.ts' },
];

/** Not run by a test yet: page, the sample's first line, and why. */
const NOT_YET_RUN = [
  {
    page: 'docs/operations.md',
    first: 'podman build -f ops/container/Containerfile --format docker -t switchyard .',
    why: 'the default build pulls node:20-bookworm-slim from a registry, which this machine has none of; test/container builds with build.sh on a Debian base',
  },
  {
    page: 'docs/operations.md',
    first: 'BASE=debian ops/container/build.sh localhost/switchyard:latest',
    why: 'test/container/support/podman.ts runs build.sh over the Debian base, with a tag of its own',
  },
  {
    page: 'docs/operations.md',
    first: 'podman volume create switchyard-data',
    why: 'test/container/image.test.ts makes and mounts a volume the same way, with a unique name',
  },
  {
    page: 'docs/operations.md',
    first: 'podman run -d --read-only --user 4242 -p 127.0.0.1:8080:8080 -v switchyard-data:/data \\',
    why: 'test/container/image.test.ts runs the image --read-only as uid 4242 on a volume, on a free port',
  },
  {
    page: 'docs/operations.md',
    first: "cat > switchyard.env <<'ENV'",
    why: 'test/container/image.test.ts starts the split deployment with these variables, on free ports and a fresh database',
  },
  { page: 'README.md', first: 'npm ci', why: 'CI runs npm ci (and npm test); test/readme.test.ts runs npm start as printed' },
  {
    page: 'docs/getting-started.md',
    first: 'npm ci',
    why: "the same commands; test/readme.test.ts checks they match the README's and runs npm start",
  },
  {
    page: 'docs/embedding.md',
    first: 'npm install @switchyard/core            # 15 packages, 1.4 MiB: no gRPC, database driver, AWS SDK or logger',
    why: 'installs from the registry; test/packages/ installs the packed tarballs instead',
  },
  {
    page: 'docs/embedding.md',
    first: "  import test from 'node:test';",
    why: "RedisRouteStore stands for the reader's adapter; test/packages/ runs a consumer's own adapter this way",
  },
  {
    page: 'docs/assets.md',
    first: "import { createRestClient, watchAssets } from '@switchyard/client';",
    why: "relistEverything and apply stand for the reader's own code; test/rest/asset-watch.test.ts calls watchAssets and listAssetChanges this way against two stacks",
  },
];

async function pages(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs')))
    .filter((name) => name.endsWith('.md') && name !== 'dispatch.md')
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

test('every sample of README.md and docs/ is run by a test, or listed as not yet run', async (t) => {
  const unaccounted: string[] = [];
  const listed = new Set<string>();
  for (const page of await pages()) {
    for (const sample of await samplesOf(page)) {
      if (sample.markers.some((name) => name in RUN_BETWEEN_MARKERS)) continue;
      if (RUN_UNDER_HEADING.some((run) => run.page === page && run.heading === sample.heading)) continue;
      const known = NOT_YET_RUN.find((entry) => entry.page === page && entry.first === sample.first);
      if (known !== undefined) listed.add(`${known.page}: ${known.first}`);
      else unaccounted.push(`${page} (under "${sample.heading}"): ${sample.first}`);
    }
  }
  t.deepEqual(unaccounted, [], 'samples no test runs: run them, or list them in NOT_YET_RUN with the reason');
  const stale = NOT_YET_RUN.map((entry) => `${entry.page}: ${entry.first}`).filter((key) => !listed.has(key));
  t.deepEqual(stale, [], 'NOT_YET_RUN names samples that are gone: take them off the list');
});

test('the tests named as running samples exist and read those samples', async (t) => {
  for (const [marker, file] of Object.entries(RUN_BETWEEN_MARKERS)) {
    t.true(existsSync(join(ROOT, file)), file);
    t.true((await readFile(join(ROOT, file), 'utf8')).includes(marker), `${file} reads the ${marker} markers`);
  }
  for (const run of RUN_UNDER_HEADING) {
    const source = await readFile(join(ROOT, run.by), 'utf8');
    t.true(source.includes(run.page) && source.includes(run.heading), `${run.by} reads "${run.heading}" of ${run.page}`);
  }
});
