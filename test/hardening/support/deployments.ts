import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadServiceConfig, openStorage, type StorageConfig } from '@switchyard/service';
import { createTestMysqlDatabase } from '../../support/mysql.js';
import { startS3rver, type TestS3 } from '../../support/s3rver.js';
import { GrpcClients } from '../../grpc/support/clients.js';
import { cliArgs } from '../../support/cli.js';
import { Child, cleanEnv, ROOT } from '../../rest/support/processes.js';

/** The CDN base the service processes are given; ReadFile paths are asset urls without it. */
export const CDN_URL = 'http://cdn.test/files';

/**
 * Storage that service processes share, described as the environment they
 * are started with, plus what a test needs to inspect it directly.
 */
export interface Deployment {
  readonly name: 'sqlite-disk' | 'mysql-s3';
  /** Variables for `npm run service` and `npm run gc` (DATA_DIR, DATABASE_URL, BLOB_STORE, S3_*, AUTH_SECRET…). */
  readonly env: Readonly<Record<string, string>>;
  /** The same storage as the processes see it, with credentials, for direct reads. */
  readonly storage: StorageConfig;
  readonly dataDir: string;
  readonly secret: string;
  /** s3rver, for mysql-s3. */
  readonly s3?: TestS3 | undefined;
  cleanup(): Promise<void>;
}

/** Limits that would turn a deliberate burst into 429s are off: these tests are about consistency, not throttling. */
const UNTHROTTLED = { RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: 'warn', CDN_URL, HOST: '127.0.0.1', GRPC_PORT: '0' } as const;

export async function sqliteDiskDeployment(): Promise<Deployment> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-hardening-'));
  const secret = randomBytes(32).toString('base64url');
  const env = { ...UNTHROTTLED, DATA_DIR: dataDir, AUTH_SECRET: secret };
  return {
    name: 'sqlite-disk',
    env,
    storage: loadServiceConfig(env).storage,
    dataDir,
    secret,
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A fresh MySQL database and a fresh s3rver bucket; `undefined` when MySQL is unreachable (and REQUIRE_MYSQL is not 1). */
export async function mysqlS3Deployment(): Promise<Deployment | undefined> {
  const database = await createTestMysqlDatabase();
  if (!database) return undefined;
  const s3 = await startS3rver();
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-hardening-'));
  const secret = randomBytes(32).toString('base64url');
  const env = {
    ...UNTHROTTLED,
    DATA_DIR: dataDir,
    AUTH_SECRET: secret,
    DATABASE_URL: database.url,
    BLOB_STORE: 's3',
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    // The 5 s default bounds a dead connection. On a shared CI disk near saturation, a commit can take most of a
    // second, and a burst of writers to one workspace queues on its revision row's lock for longer than 5 s (a CI
    // run lost asset-paging's seeding of 24 parallel uploads to a 503 so): these tests are about consistency, and
    // the fail-fast bound has its own test (dependency-faults.test.ts sets 1 s).
    STORAGE_TIMEOUT_MS: '30000',
  };
  const storage: StorageConfig = { database: loadServiceConfig(env).storage.database, blobs: s3.config };
  return {
    name: 'mysql-s3',
    env,
    storage,
    dataDir,
    secret,
    s3,
    cleanup: async () => {
      await s3.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Both storage deployments, named, and whether each needs MySQL (register its tests through `testNeedingMysql()`). */
export const DEPLOYMENTS: readonly (readonly [name: string, deploy: () => Promise<Deployment | undefined>, needsMysql: boolean])[] = [
  ['sqlite-disk', sqliteDiskDeployment, false],
  ['mysql-s3', mysqlS3Deployment, true],
];

/** `npm run service` as a child process, and gRPC clients of it. */
export class ServiceProcess {
  private constructor(
    readonly child: Child,
    readonly address: string,
    readonly clients: GrpcClients,
  ) {}

  static async start(deployment: Deployment, extra: Record<string, string> = {}): Promise<ServiceProcess> {
    const child = new Child(['service'], cleanEnv({ ...deployment.env, ...extra }));
    try {
      const [, address] = await child.waitFor(/listening on (\S+:\d+)/);
      return new ServiceProcess(child, address!, new GrpcClients(address!));
    } catch (error) {
      child.process.kill('SIGKILL');
      throw error;
    }
  }

  /** SIGKILL: no shutdown code runs, exactly as in a power cut or an OOM kill. */
  async kill(): Promise<void> {
    this.child.process.kill('SIGKILL');
    await this.child.exited;
    this.clients.close();
  }

  async stop(): Promise<number | null> {
    const code = await this.child.stop();
    this.clients.close();
    return code;
  }
}

/** `npm run gateway` as a child process in front of a service. */
export async function startGatewayProcess(
  serviceAddress: string,
  extra: Record<string, string> = {},
): Promise<{ child: Child; url: string }> {
  const child = new Child(
    ['gateway'],
    cleanEnv({ PORT: '0', HOST: '127.0.0.1', SERVICE_URL: `http://${serviceAddress}`, CDN_URL, LOG_LEVEL: 'warn', ...extra }),
  );
  try {
    const [, url] = await child.waitFor(/gateway listening on (http:\/\/\S+:\d+)/);
    return { child, url: url! };
  } catch (error) {
    child.process.kill('SIGKILL');
    throw error;
  }
}

/** `npm run gc -- <args>` with the deployment's environment; its exit code and output. */
export async function runGc(deployment: Deployment, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, cliArgs('gc', ...args), {
    cwd: ROOT,
    env: cleanEnv({ ...deployment.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code: code, output };
}

/** What a deployment holds, read straight from its database and blob store, with every broken record named. */
export interface Audit {
  readonly assetRows: number;
  readonly routeRows: number;
  /** Blob keys the records, their versions and the trash point at. */
  readonly referencedKeys: readonly string[];
  /** Every key the blob store lists. */
  readonly blobKeys: readonly string[];
  /** Records, versions and trash entries whose blob is missing, or whose bytes disagree with their size or sha256. */
  readonly broken: readonly string[];
  /** Files under the disk store's root that are not blobs (temp files of writes a crash cut short). */
  readonly strayFiles: readonly string[];
  /** Multipart uploads s3rver still holds (parts of puts a crash cut short). */
  readonly pendingMultipart: readonly string[];
}

export async function audit(deployment: Deployment): Promise<Audit> {
  const storage = await openStorage(deployment.storage, { migrate: false });
  try {
    const live = await storage.db.selectFrom('assets').select(['id', 'blob_key', 'size', 'sha256']).execute();
    // Versions and trashed assets keep their blobs too (issue 43): each must still have its bytes.
    const kept = [
      ...(await storage.db.selectFrom('asset_versions').select(['id', 'blob_key', 'size', 'sha256']).execute()),
      ...(await storage.db.selectFrom('asset_trash').select(['id', 'blob_key', 'size', 'sha256']).execute()),
    ];
    const rows = [...live, ...kept];
    const routeRows = Number(
      (
        await storage.db
          .selectFrom('routes')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const broken: string[] = [];
    const check = async (row: (typeof rows)[number]) => {
      const body = await storage.blobStore.get(row.blob_key);
      if (!body) return void broken.push(`${row.id}: blob ${row.blob_key} is missing`);
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of body) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      const sha256 = hash.digest('hex');
      if (sha256 !== row.sha256 || size !== Number(row.size))
        broken.push(`${row.id}: record says ${row.size} B ${row.sha256}, blob holds ${size} B ${sha256}`);
    };
    const queue = [...rows];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let row = queue.shift(); row; row = queue.shift()) await check(row);
      }),
    );
    const blobKeys: string[] = [];
    for await (const blob of storage.blobStore.list()) blobKeys.push(blob.key);
    const blobs = deployment.storage.blobs;
    const strayFiles =
      blobs.kind === 'disk' ? (await filesUnder(blobs.root)).filter((path) => !blobKeys.includes(path.split('\\').join('/'))) : [];
    const pendingMultipart = deployment.s3 ? await multipartFolders(deployment.s3) : [];
    return {
      assetRows: live.length,
      routeRows,
      referencedKeys: rows.map((row) => row.blob_key).sort(),
      blobKeys: blobKeys.sort(),
      broken,
      strayFiles,
      pendingMultipart,
    };
  } finally {
    await storage.close();
  }
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** s3rver keeps each multipart upload in progress as a folder under `<bucket>/._S3rver_uploads/`. */
async function multipartFolders(s3: TestS3): Promise<string[]> {
  const entries = await readdir(join(s3.directory, s3.bucket, '._S3rver_uploads')).catch(() => []);
  return entries.map(String);
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
