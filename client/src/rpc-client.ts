import { createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import { AssetService, FileService, RouteService, UploadService, type Asset } from '@switchyard/proto';
import { headersInterceptor, type ClientOptions } from './options.js';
import { replace, upload, type ReplaceOptions, type UploadOptions } from './uploads.js';

/** The typed clients of Switchyard's services, and upload helpers, over one transport. */
export interface RpcClient<Source> {
  readonly routes: Client<typeof RouteService>;
  readonly assets: Client<typeof AssetService>;
  readonly files: Client<typeof FileService>;
  /** Resumable uploads (what the gateway serves as tus); `resumableUpload` drives them from Node. */
  readonly uploads: Client<typeof UploadService>;
  /** Uploads a file (streamed in chunks; the service sniffs its type). A path's or `File`'s name is the asset's unless `filename` says otherwise. */
  uploadAsset(source: Source, options?: UploadOptions): Promise<Asset>;
  /** Replaces an asset's file; the id stays the same, and so does the name unless `filename` or the source (a path, a `File`) gives one. */
  replaceAsset(id: string, source: Source, options?: ReplaceOptions): Promise<Asset>;
  /** Closes connections the client holds; later calls fail. */
  close(): void;
}

/** Builds the clients on `makeTransport`, given the interceptor that adds the token and headers. */
export function createRpcClient<Source>(
  options: ClientOptions,
  makeTransport: (interceptors: Interceptor[]) => { transport: Transport; close(): void },
  bytesOf: (source: Source) => AsyncIterable<Uint8Array>,
  nameOf: (source: Source) => string | undefined,
): RpcClient<Source> {
  const { transport, close } = makeTransport([headersInterceptor(options)]);
  const assets = createClient(AssetService, transport);
  return Object.freeze({
    routes: createClient(RouteService, transport),
    assets,
    files: createClient(FileService, transport),
    uploads: createClient(UploadService, transport),
    uploadAsset: (source: Source, uploadOptions: UploadOptions = {}) =>
      upload(assets, bytesOf(source), { ...uploadOptions, filename: uploadOptions.filename ?? nameOf(source) }),
    replaceAsset: (id: string, source: Source, replaceOptions: ReplaceOptions = {}) =>
      replace(assets, id, bytesOf(source), { ...replaceOptions, filename: replaceOptions.filename ?? nameOf(source) }),
    close,
  });
}
