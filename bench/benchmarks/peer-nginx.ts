import { checkFileServing } from '../harness/file-checks.js';
import { compareHttp } from '../harness/http-load.js';
import { startNginx } from '../harness/nginx.js';
import type { BenchResult } from '../harness/results.js';
import { createWorkspace, startOurs } from '../harness/servers.js';
import { SIZES, uploadedUrl } from './file-serve.js';
import { FILE_PEER_SKIPS, fileBytes, fileResult } from './peer-file-serve.js';

/**
 * nginx-file-serve-16kib and -4mib: ours' public file urls under file-serve's
 * load against nginx from Debian (installed by the bench when missing)
 * serving the same bytes with bench/baselines/nginx.conf: sendfile and
 * open_file_cache, one worker per core. The limit of serving files on this
 * machine, a reference and not a goal. nginx's CPU is that of its master and
 * every worker.
 */
export async function nginxFileServe(): Promise<BenchResult[]> {
  const ws = await createWorkspace('nginx-file-serve');
  try {
    const nginx = await startNginx(new Map(SIZES.map(({ bytes }) => [`${bytes}.bin`, fileBytes(bytes)])));
    try {
      const ours = await startOurs(ws);
      try {
        const results: BenchResult[] = [];
        for (const { bytes } of SIZES) {
          const oursUrl = await uploadedUrl(ours.url, ws.token, bytes);
          const nginxUrl = `${nginx.url}/files/${bytes}.bin`;
          await checkFileServing(oursUrl, fileBytes(bytes));
          await checkFileServing(nginxUrl, fileBytes(bytes));
          const stats = await compareHttp((side) => ({ url: side === 'ours' ? oursUrl : nginxUrl }), {
            ours: ours.pid,
            baseline: nginx.pids,
          });
          const peer = {
            peer: `${nginx.version} (Debian), ${nginx.pids.length - 1} worker processes`,
            settings:
              'bench/baselines/nginx.conf: worker_processes auto; sendfile on; tcp_nopush on; open_file_cache max=1000 inactive=20s, valid 30s, min_uses 2, errors on (the nginx.org example); access_log on',
            skips: [
              ...FILE_PEER_SKIPS,
              'no open or stat per request once a file is in open_file_cache; sendfile: the bytes never pass through user space',
              `${nginx.pids.length - 1} worker processes against ours' one event loop`,
            ],
          };
          results.push(fileResult(`nginx-file-serve-${bytes < 1024 * 1024 ? '16kib' : '4mib'}`, bytes, stats, peer));
        }
        return results;
      } finally {
        await ours.stop();
      }
    } finally {
      await nginx.stop();
    }
  } finally {
    await ws.cleanup();
  }
}
