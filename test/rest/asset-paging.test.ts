// Paging through 1,000 assets, over REST and over gRPC, on SQLite + disk and
// MySQL + S3, while other assets are uploaded and deleted concurrently: every
// asset that existed throughout is seen exactly once, in newest-first order.
import test from 'ava';
import { Metadata } from '@grpc/grpc-js';
import { GrpcClients } from '../grpc/support/clients.js';
import { DEPLOYMENTS } from '../hardening/support/deployments.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';

/**
 * About 27 pages, with churn between each: the pages and the churn are what is
 * tested, so the page is small rather than the seed large (2,500 assets in pages
 * of 97 made as many pages and cost CI 60 s more in uploads).
 */
const ASSETS = 1_000;
const PAGE = 37;
/** Uploads in flight while seeding. */
const PARALLEL = 24;

const mysqlTest = await testNeedingMysql();

for (const [name, deploy, needsMysql] of DEPLOYMENTS) {
  const register = needsMysql ? mysqlTest : test;
  register(
    `${name}: paging through ${ASSETS} assets while others come and go sees each one that existed throughout exactly once, over REST and gRPC`,
    async (t) => {
      t.timeout(300_000);
      const deployment = stillReachable(await deploy());
      const { CDN_URL: _cdn, ...env } = deployment.env;
      const stack = await startStack(env);
      const clients = new GrpcClients(stack.service.address);
      try {
        const headers = await stack.auth(freshWorkspace('paging'));
        const steady = await seed(stack, headers, ASSETS);
        const metadata = new Metadata();
        metadata.set('authorization', headers.authorization!);

        // Churn between pages: new assets (none existed throughout), deletes of some of them, and deletes of steady ones
        // on both sides of the cursor (from then on they did not exist throughout either).
        const churned = new Set<string>();
        const gone = new Set<string>();
        const remaining = [...steady];
        for (const [surface, page] of [
          ['REST', (token: string) => restPage(stack, headers, token)],
          ['gRPC', (token: string) => grpcPage(clients, metadata, token)],
        ] as const) {
          const seen: string[] = [];
          let token = '';
          let pages = 0;
          do {
            const result = await page(token);
            seen.push(...result.ids);
            token = result.next;
            pages += 1;
            for (const id of await seed(stack, headers, 2)) churned.add(id);
            const victims = [[...churned][churned.size - 1]!, remaining.splice((pages * 7919) % remaining.length, 1)[0]!];
            for (const id of victims) {
              const deleted = await fetch(`${stack.url}/v1/assets/${id}`, { method: 'DELETE', headers });
              t.is(deleted.status, 204);
              gone.add(id);
            }
          } while (token !== '');
          const throughout = new Set([...steady].filter((id) => !gone.has(id)));
          const expected = [...throughout].sort().reverse();
          t.deepEqual(
            seen.filter((id) => throughout.has(id)),
            expected,
            `${surface}: every asset that existed throughout, once, newest first`,
          );
          t.is(new Set(seen).size, seen.length, `${surface}: nothing repeated`);
          t.true(
            seen.every((id) => steady.has(id) || churned.has(id)),
            `${surface}: nothing that never existed`,
          );
          t.log(
            `${name} ${surface}: ${pages} pages of ${PAGE}; ${throughout.size} assets existed throughout; ${gone.size} deleted and ${churned.size} uploaded meanwhile`,
          );
        }
      } finally {
        clients.close();
        await stack.stop();
        await deployment.cleanup();
      }
    },
  );
}

/** Uploads `count` small files, `PARALLEL` at a time; their ids. */
async function seed(stack: Stack, headers: Record<string, string>, count: number): Promise<Set<string>> {
  const ids = new Set<string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, count) }, async () => {
      while (next < count) {
        next += 1;
        const form = new FormData();
        form.append('file', new Blob([`asset ${next}\n`], { type: 'text/plain' }), 'a.txt');
        const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form });
        if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
        ids.add(((await response.json()) as { id: string }).id);
      }
    }),
  );
  return ids;
}

async function restPage(stack: Stack, headers: Record<string, string>, token: string): Promise<{ ids: string[]; next: string }> {
  const response = await fetch(`${stack.url}/v1/assets?pageSize=${PAGE}&pageToken=${encodeURIComponent(token)}`, { headers });
  if (response.status !== 200) throw new Error(`list: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { assets: { id: string }[]; nextPageToken: string };
  return { ids: body.assets.map((asset) => asset.id), next: body.nextPageToken };
}

function grpcPage(clients: GrpcClients, metadata: Metadata, token: string): Promise<{ ids: string[]; next: string }> {
  return new Promise((resolve, reject) => {
    clients.assets.listAssets({ pageSize: PAGE, pageToken: token, type: '', q: '' }, metadata, (error, page) => {
      if (error) return reject(error);
      resolve({ ids: page.assets.map((asset) => asset.id), next: page.nextPageToken });
    });
  });
}
