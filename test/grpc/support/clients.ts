import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type Client,
  type ClientWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import {
  AssetServiceClient,
  type Asset,
  type ReplaceAssetRequest,
  type ReplaceMetadata,
  type UploadAssetRequest,
  type UploadMetadata,
  type BatchDeleteAssetsResponse,
  type DeleteAssetResponse,
  type ListAssetsResponse,
  type ListAssetChangesResponse,
  type ListAssetVersionsResponse,
  type ListTrashResponse,
  type PurgeAssetResponse,
  type RevokeSignedUrlsResponse,
  type SignedUrl,
  type WorkspacePolicy,
  type WorkspaceUsage,
} from '@switchyard/service/gen/switchyard/v1/assets.js';
import { FileServiceClient, type FileInfo, type ReadFileRequest } from '@switchyard/service/gen/switchyard/v1/files.js';
import {
  RouteServiceClient,
  type CreateRouteRequest,
  type MatchRouteResponse,
  type Route,
} from '@switchyard/service/gen/switchyard/v1/routes.js';

export const CHUNK_BYTES = 64 * 1024;

type Callback<T> = (error: ServiceError | null, value?: T) => void;

function settle<T>(start: (callback: Callback<T>) => unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    start((error, value) => (error ? reject(error) : resolve(value as T)));
  });
}

/** Metadata with `authorization: Bearer <token>` (or none for `undefined`). */
export function bearer(token: string | undefined, extra: Record<string, string> = {}): Metadata {
  const metadata = new Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
  return metadata;
}

/** Splits bytes into upload chunks. */
export function* chunksOf(bytes: Buffer, size = CHUNK_BYTES): Generator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

export interface ReadFileResult {
  readonly info: FileInfo;
  readonly bytes: Buffer;
  readonly messages: number;
}

/** What each unary AssetService method answers. */
interface AssetReplies {
  listAssets: ListAssetsResponse;
  updateAsset: Asset;
  deleteAsset: DeleteAssetResponse;
  batchDeleteAssets: BatchDeleteAssetsResponse;
  getWorkspaceUsage: WorkspaceUsage;
  createSignedUrl: SignedUrl;
  revokeSignedUrls: RevokeSignedUrlsResponse;
  getWorkspacePolicy: WorkspacePolicy;
  setWorkspacePolicy: WorkspacePolicy;
  listAssetChanges: ListAssetChangesResponse;
  listAssetVersions: ListAssetVersionsResponse;
  restoreAssetVersion: Asset;
  listTrash: ListTrashResponse;
  restoreAsset: Asset;
  purgeAsset: PurgeAssetResponse;
}
type UnaryAssetMethod = keyof AssetReplies;

/** The generated ts-proto clients of one address, promisified for tests. */
export class GrpcClients {
  readonly routes: RouteServiceClient;
  readonly assets: AssetServiceClient;
  readonly files: FileServiceClient;
  readonly health: Client & Record<string, (...args: unknown[]) => unknown>;

  constructor(readonly address: string) {
    const insecure = credentials.createInsecure();
    this.routes = new RouteServiceClient(address, insecure);
    this.assets = new AssetServiceClient(address, insecure);
    this.files = new FileServiceClient(address, insecure);
    const Health = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');
    this.health = new Health(address, insecure) as GrpcClients['health'];
  }

  createRoute(metadata: Metadata, request: Partial<CreateRouteRequest>): Promise<Route> {
    return settle((cb) =>
      this.routes.createRoute({ method: '', path: '', middleware: [], handler: '', owner: '', ...request }, metadata, cb),
    );
  }

  getRoute(metadata: Metadata, id: string): Promise<Route> {
    return settle((cb) => this.routes.getRoute({ id }, metadata, cb));
  }

  matchRoute(metadata: Metadata, method: string, path: string): Promise<MatchRouteResponse> {
    return settle((cb) => this.routes.matchRoute({ method, path }, metadata, cb));
  }

  getAsset(metadata: Metadata, id: string): Promise<Asset> {
    return settle((cb) => this.assets.getAsset({ id }, metadata, cb));
  }

  /** Starts an upload and hands back the stream, for tests that steer it by hand. */
  startUpload(metadata: Metadata): { stream: ClientWritableStream<UploadAssetRequest>; result: Promise<Asset> } {
    let stream!: ClientWritableStream<UploadAssetRequest>;
    const result = settle<Asset>((cb) => (stream = this.assets.uploadAsset(metadata, cb)));
    return { stream, result };
  }

  upload(metadata: Metadata, head: Partial<UploadMetadata>, bytes: Buffer): Promise<Asset> {
    const { stream, result } = this.startUpload(metadata);
    void writeAll(stream, [
      { metadata: { label: '', filename: '', declaredType: '', visibility: '', ...head } },
      ...[...chunksOf(bytes)].map((chunk) => ({ chunk })),
    ]);
    return result;
  }

  /** Sends exactly these messages (for malformed streams). */
  uploadMessages(metadata: Metadata, messages: UploadAssetRequest[]): Promise<Asset> {
    const { stream, result } = this.startUpload(metadata);
    void writeAll(stream, messages);
    return result;
  }

  replace(metadata: Metadata, head: Partial<ReplaceMetadata> & { id: string }, bytes: Buffer): Promise<Asset> {
    let stream!: ClientWritableStream<ReplaceAssetRequest>;
    const result = settle<Asset>((cb) => (stream = this.assets.replaceAsset(metadata, cb)));
    void writeAll(stream, [
      { metadata: { filename: '', declaredType: '', visibility: '', ...head } },
      ...[...chunksOf(bytes)].map((chunk) => ({ chunk })),
    ]);
    return result;
  }

  async readFile(request: Partial<ReadFileRequest>, metadata = new Metadata()): Promise<ReadFileResult> {
    const call = this.files.readFile({ path: '', infoOnly: false, query: '', ...request }, metadata);
    let info: FileInfo | undefined;
    const parts: Buffer[] = [];
    let messages = 0;
    for await (const message of call as AsyncIterable<{ info?: FileInfo; chunk?: Buffer }>) {
      messages += 1;
      if (message.info) info = message.info;
      if (message.chunk) parts.push(message.chunk);
    }
    if (!info) throw new Error('ReadFile sent no info');
    return { info, bytes: Buffer.concat(parts), messages };
  }

  /** Any unary AssetService call, by its client method name, with a full request message. */
  asset<M extends UnaryAssetMethod>(
    method: M,
    metadata: Metadata,
    request: Parameters<AssetServiceClient[M]>[0],
  ): Promise<AssetReplies[M]> {
    const call = this.assets[method] as unknown as (request: unknown, metadata: Metadata, callback: Callback<AssetReplies[M]>) => unknown;
    return settle((cb) => call.call(this.assets, request, metadata, cb));
  }

  healthCheck(service: string): Promise<string> {
    return settle<{ status: number | string }>((cb) => this.health['check']!({ service }, cb)).then((response) =>
      typeof response.status === 'number'
        ? (['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'][response.status] ?? 'UNKNOWN')
        : response.status,
    );
  }

  close(): void {
    for (const client of [this.routes, this.assets, this.files, this.health]) client.close();
  }
}

/** Writes messages honouring the client stream's backpressure, then ends it. */
export async function writeAll<T>(stream: ClientWritableStream<T>, messages: Iterable<T>): Promise<void> {
  for (const message of messages) {
    if (stream.destroyed || stream.writableEnded) return;
    if (!stream.write(message)) await new Promise<void>((resolve) => stream.once('drain', resolve).once('close', resolve));
  }
  if (!stream.destroyed) stream.end();
}
