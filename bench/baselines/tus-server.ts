// Peer for peer-tus-upload: @tus/server 2 with @tus/file-store, set up as
// their READMEs show ("A standalone server which stores files on disk":
// `new Server({ path, datastore: new FileStore({ directory }) })`), with:
// - `maxSize` 1 GiB, ours' MAX_UPLOAD_BYTES in the bench ("Max file size (in
//   bytes) allowed when uploading");
// - the default locker, kept on purpose: "By default it uses an in-memory
//   locker ([`MemoryLocker`]) for safe concurrent access to uploads using a
//   single server" (this is one server);
// - access control in `onIncomingRequest` ("This can be used for things like
//   access control"), the same HS256 bearer-token check as the other
//   baselines, so the peer checks every request as ours does.
// What it does not do that ours does, by design of the FileStore: no fsync
// (bytes are acknowledged from the page cache), no sha256, no content
// sniffing, no database record, no asset made at the end: the finished
// upload is a file and a JSON info file beside it.
import { createServer } from 'node:http';
import { Server } from '@tus/server';
import { FileStore } from '@tus/file-store';
import { createAuth, requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

const authorize = createAuth(requiredEnv('AUTH_SECRET'));

const tus = new Server({
  path: '/files',
  datastore: new FileStore({ directory: requiredEnv('TUS_DIR') }),
  maxSize: Number(process.env.MAX_UPLOAD_BYTES ?? 1024 * 1024 * 1024),
  async onIncomingRequest(req) {
    // OPTIONS answers without a token, as ours does (README: accepted deviations).
    if (req.method === 'OPTIONS') return;
    const auth = await authorize({ headers: { authorization: req.headers.get('authorization') ?? undefined } }, 'assets:write');
    // @tus/server answers a thrown { status_code, body } as that reply.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if ('status' in auth) throw { status_code: auth.status, body: 'refused\n' };
  },
});

serveHttp(createServer((req, res) => void tus.handle(req, res)));
