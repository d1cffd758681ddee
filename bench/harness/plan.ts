/**
 * How long each measurement runs. The defaults keep `npm run bench` near five
 * minutes on two cores; BENCH_QUICK=1 shrinks everything for a smoke run.
 */
const quick = process.env.BENCH_QUICK === '1';

export const plan = Object.freeze({
  warmupSeconds: quick ? 1 : 5,
  measureSeconds: quick ? 1 : 8,
  /** Measured rounds per side; the order of ours and the baseline flips every round. */
  rounds: 2,
  /** Concurrent HTTP connections (autocannon). */
  connections: 10,
  /** Unary gRPC calls kept in flight on one channel. */
  grpcConcurrency: 32,
  /** Upload sizes in MiB and how many uploads of each size per side. */
  uploads: quick
    ? [{ mib: 16, runs: 1 }]
    : [
        { mib: 512, runs: 3 },
        { mib: 64, runs: 5 },
      ],
  /** tus uploads: file size and PATCH size in MiB, uploads per side (tus and multipart alternate). */
  tusUpload: quick ? { mib: 16, chunkMib: 8, runs: 1 } : { mib: 256, chunkMib: 8, runs: 5 },
  /** In-process route matching: how long to time each matcher per round. */
  matchMillis: quick ? 200 : 2000,
});
