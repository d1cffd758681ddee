// The S3 store's sweep of unfinished multipart uploads, against a stand-in S3 endpoint:
// s3rver has no ListMultipartUploads, and this is the path real S3 and MinIO take.
import test from 'ava';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3BlobStore } from './s3-blob-store.js';

const OLD = '2020-01-01T00:00:00.000Z';
const YOUNG = new Date(Date.now() + 60_000).toISOString();

/** Two pages of uploads: an old one of ours, a young one, an old one under a key we never write, then another old one of ours. */
const PAGES = [
  {
    next: { key: 'ws/as_2/young', uploadId: 'u-young' },
    uploads: [
      ['ws/as_1/old', 'u-old', OLD],
      ['ws/as_2/young', 'u-young', YOUNG],
    ],
  },
  {
    next: undefined,
    uploads: [
      ['../escape', 'u-foreign', OLD],
      ['ws/as_3/old', 'u-old-2', OLD],
    ],
  },
] as const;

function listing(page: (typeof PAGES)[number]): string {
  const uploads = page.uploads
    .map(([key, id, initiated]) => `<Upload><Key>${key}</Key><UploadId>${id}</UploadId><Initiated>${initiated}</Initiated></Upload>`)
    .join('');
  const next = page.next
    ? `<NextKeyMarker>${page.next.key}</NextKeyMarker><NextUploadIdMarker>${page.next.uploadId}</NextUploadIdMarker>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>bucket</Bucket>${next}<MaxUploads>2</MaxUploads><IsTruncated>${page.next ? 'true' : 'false'}</IsTruncated>${uploads}</ListMultipartUploadsResult>`;
}

async function fakeS3(t: import('ava').ExecutionContext): Promise<{ endpoint: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://s3');
    requests.push(`${request.method} ${url.pathname}?${url.searchParams.toString()}`);
    if (request.method === 'GET' && url.searchParams.has('uploads')) {
      const page = url.searchParams.get('key-marker') === PAGES[0].next.key ? PAGES[1] : PAGES[0];
      response.writeHead(200, { 'content-type': 'application/xml' }).end(listing(page));
    } else if (request.method === 'DELETE' && url.searchParams.has('uploadId')) {
      // The second abort finds its upload already gone (completed meanwhile): that is no failure.
      if (url.searchParams.get('uploadId') === 'u-old-2') {
        response
          .writeHead(404, { 'content-type': 'application/xml' })
          .end('<Error><Code>NoSuchUpload</Code><Message>gone</Message></Error>');
      } else response.writeHead(204).end();
    } else response.writeHead(400).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function storeAt(endpoint: string): S3BlobStore {
  return new S3BlobStore({
    kind: 's3',
    bucket: 'bucket',
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
  });
}

test('s3: unfinished multipart uploads older than the cut-off are aborted, across pages; young ones and foreign keys stay', async (t) => {
  const { endpoint, requests } = await fakeS3(t);
  const store = storeAt(endpoint);
  t.teardown(() => store.close());
  const sweep = await store.sweepAbandonedWrites(new Date(), { dryRun: false });
  t.deepEqual(sweep.removed, ['ws/as_1/old (multipart upload u-old)', 'ws/as_3/old (multipart upload u-old-2)']);
  t.is(sweep.unsupported, undefined);
  t.deepEqual(
    requests.filter((line) => line.startsWith('DELETE')).map((line) => line.replace(/&x-id=\w+$/, '')),
    ['DELETE /bucket/ws/as_1/old?uploadId=u-old', 'DELETE /bucket/ws/as_3/old?uploadId=u-old-2'],
  );
  t.true(
    requests.some((line) => line.includes('key-marker=ws%2Fas_2%2Fyoung') && line.includes('upload-id-marker=u-young')),
    'the second page was asked for',
  );
});

test('s3: a dry run lists the same uploads and aborts none', async (t) => {
  const { endpoint, requests } = await fakeS3(t);
  const store = storeAt(endpoint);
  t.teardown(() => store.close());
  const sweep = await store.sweepAbandonedWrites(new Date(), { dryRun: true });
  t.is(sweep.removed.length, 2);
  t.false(requests.some((line) => line.startsWith('DELETE')));
});
