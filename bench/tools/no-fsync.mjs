// A side experiment, never shipped: preloaded into ours
// (NODE_OPTIONS=--import=<this file>, BENCH_OURS_NO_FSYNC=1 in
// peer-tus-upload) it turns the disk blob store's fsyncs into no-ops
// (FileHandle.sync/datasync, fs.fsync/fdatasync, which the `flush` option
// of write streams calls), so ours does no more file syncing than
// @tus/file-store does. SQLite's own syncs (its commits) are untouched:
// better-sqlite3 calls them from C.
import fs from 'node:fs';

const handle = await fs.promises.open('/dev/null', 'r');
const FileHandle = Object.getPrototypeOf(handle);
await handle.close();
FileHandle.sync = async function sync() {};
FileHandle.datasync = async function datasync() {};
fs.fsync = (_fd, callback) => process.nextTick(callback, null);
fs.fdatasync = (_fd, callback) => process.nextTick(callback, null);
fs.fsyncSync = () => undefined;
fs.fdatasyncSync = () => undefined;
