// fast-check generators of hostile Connect-protocol and gRPC-Web calls to the gateway: messages
// with hostile field values, bytes that are not protobuf, broken envelopes and upload streams.
import { create, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import fc from 'fast-check';
import {
  AppendUploadRequestSchema,
  BatchDeleteAssetsRequestSchema,
  CreateUploadRequestSchema,
  GetUploadRequestSchema,
  TerminateUploadRequestSchema,
  CreateRouteRequestSchema,
  CreateSignedUrlRequestSchema,
  DeleteRouteRequestSchema,
  ListRoutesRequestSchema,
  UpdateRouteRequestSchema,
  WatchRoutesRequestSchema,
  DeleteAssetRequestSchema,
  ListAssetVersionsRequestSchema,
  ReadAssetVersionRequestSchema,
  RestoreAssetVersionRequestSchema,
  ListTrashRequestSchema,
  RestoreAssetRequestSchema,
  PurgeAssetRequestSchema,
  CreateWebhookRequestSchema,
  ListWebhooksRequestSchema,
  GetWebhookRequestSchema,
  UpdateWebhookRequestSchema,
  DeleteWebhookRequestSchema,
  RotateWebhookSecretRequestSchema,
  TestWebhookRequestSchema,
  ListDeliveriesRequestSchema,
  ResendDeliveryRequestSchema,
  RecoverDeliveriesRequestSchema,
  GetAssetRequestSchema,
  GetRouteRequestSchema,
  ListAssetsRequestSchema,
  MatchRouteRequestSchema,
  ReadFileRequestSchema,
  ReplaceAssetRequestSchema,
  RevokeSignedUrlsRequestSchema,
  SetWorkspacePolicyRequestSchema,
  UpdateAssetRequestSchema,
  UploadAssetRequestSchema,
} from '@switchyard/proto';
import { type HostileRequest, type Targets, hostileWebhookEvents, hostileWebhookUrl, nastyString } from './hostile-http.js';

const bin = <S extends DescMessage>(schema: S, init: MessageInitShape<S>): Buffer => Buffer.from(toBinary(schema, create(schema, init)));

/** Protobuf bytes by hand: a length-delimited field whose bytes need not be UTF-8 (overlong forms, lone surrogates, NUL). */
function rawStringField(field: number, bytes: Buffer): Buffer {
  const varint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...varint(n >>> 7)]);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...varint(bytes.length)]), bytes]);
}

const rawStringBytes = fc.constantFrom(
  Buffer.from([0xc0, 0xae, 0xc0, 0xae, 0x2f]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xe0, 0x80, 0xae]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from('a\u0000b'),
  Buffer.from('../../auth-secret'),
);

/** Bytes that are not a message: random, a valid message cut short or with a byte flipped, a length past the end, a group wire type. */
export function mangled(valid: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    fc.tuple(valid, fc.nat()).map(([bytes, at]) => bytes.subarray(0, bytes.length === 0 ? 0 : at % bytes.length)),
    fc.tuple(valid, fc.nat(), fc.integer({ min: 1, max: 255 })).map(([bytes, at, xor]) => {
      const copy = Buffer.from(bytes);
      if (copy.length > 0) copy[at % copy.length]! ^= xor;
      return copy;
    }),
    fc.constantFrom(
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
      Buffer.from([0x0b]),
      Buffer.from([0x0a, 0x05, 0x61]),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
      Buffer.from([0x78, 0x80]),
    ),
  );
}

export interface Rpc {
  readonly path: string;
  readonly streaming: boolean;
  readonly message: fc.Arbitrary<Buffer>;
  /** The answer is a stream that ends only when the client leaves (a watch): callers stop at its first message. */
  readonly endless?: boolean;
}

/** Each RPC's path and hostile messages (for a stream, a JSON list of base64 messages). */
export function rpcs(targets: Targets): Rpc[] {
  const id = fc.oneof(nastyString, fc.constantFrom(targets.routeId, targets.assetId, `${targets.assetId}\u0000`, ''));
  const filePath = fc.oneof(
    nastyString,
    fc.constant(targets.filePath.split('/').slice(2).join('/')),
    fc.constantFrom('../../auth-secret', '/etc/passwd', '.tmp/x', 'a/../../b'),
  );
  const bigint = fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.constantFrom(-1n, 0n, 2n ** 53n, 2n ** 63n - 1n, -(2n ** 63n)),
  );
  const visibility = fc.oneof(fc.constantFrom('public', 'private', ''), nastyString);
  const uploadMeta = fc.record({ label: nastyString, filename: nastyString, declaredType: nastyString, visibility });
  const upload = fc.array(
    fc.oneof(
      uploadMeta.map((value) => bin(UploadAssetRequestSchema, { payload: { case: 'metadata', value } })),
      fc.uint8Array({ maxLength: 512 }).map((chunk) => bin(UploadAssetRequestSchema, { payload: { case: 'chunk', value: chunk } })),
      nastyString.map((label) => bin(UploadAssetRequestSchema, { payload: { case: 'trailingLabel', value: label } })),
      visibility.map((value) => bin(UploadAssetRequestSchema, { payload: { case: 'trailingVisibility', value } })),
      fc.constant(bin(UploadAssetRequestSchema, {})),
    ),
    { maxLength: 5 },
  );
  const replace = fc.array(
    fc.oneof(
      fc
        .record({ id, filename: nastyString, declaredType: nastyString, visibility })
        .map((value) => bin(ReplaceAssetRequestSchema, { payload: { case: 'metadata', value } })),
      visibility.map((value) => bin(ReplaceAssetRequestSchema, { payload: { case: 'trailingVisibility', value } })),
      fc.uint8Array({ maxLength: 512 }).map((chunk) => bin(ReplaceAssetRequestSchema, { payload: { case: 'chunk', value: chunk } })),
    ),
    { maxLength: 5 },
  );
  const rawId = rawStringBytes.map((bytes) => rawStringField(1, bytes));
  const webhookId = fc.oneof(
    nastyString,
    fc.constantFrom(
      targets.webhookId,
      targets.webhookId,
      `${targets.webhookId}\u0000`,
      targets.webhookId.toUpperCase(),
      targets.assetId,
      'wh_',
      '',
    ),
  );
  const deliveryId = fc.oneof(
    nastyString,
    fc.constantFrom(
      targets.deliveryId,
      targets.deliveryId,
      targets.deliveryId.slice(0, -1),
      targets.webhookId,
      'dlv_00000000000000000000000000',
      '',
    ),
  );
  const since = fc.option(fc.record({ seconds: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), nanos: fc.integer() }), {
    nil: undefined,
  });
  /** A request whose one field is the endpoint's id (field 1). */
  const webhookIdOnly = (schema: DescMessage) =>
    fc.oneof(
      webhookId.map((value) => bin(schema, { id: value })),
      rawId,
    );
  const versionId = fc.oneof(nastyString, fc.constantFrom('ver_00000000000000000000000000', 'ver_', `${targets.assetId}`, ''));
  const uploadId = fc.oneof(
    nastyString,
    fc.constantFrom(
      targets.uploadId,
      targets.uploadId,
      `${targets.uploadId}\u0000`,
      targets.uploadId.toUpperCase(),
      targets.uploadId.slice(0, -1),
      targets.assetId,
      'up_00000000000000000000000000',
      '',
      '/v1/uploads/x',
    ),
  );
  // Mostly sizes near the seeded upload's; the whole int64 range too.
  const size = fc.oneof(fc.bigInt({ min: 0n, max: 70_000n }), fc.constantFrom(0n, 0n, 16_384n), bigint);
  const createUpload = fc
    .record({
      length: fc.option(size, { nil: undefined }),
      filename: nastyString,
      label: nastyString,
      visibility,
      replace: fc.oneof(fc.constant(''), id),
      partial: fc.boolean(),
      finalOf: fc.oneof(
        fc.constant([] as string[]),
        fc.array(uploadId, { maxLength: 5 }),
        fc.array(uploadId, { minLength: 990, maxLength: 1_100 }),
      ),
    })
    .map((r) => bin(CreateUploadRequestSchema, r));
  const appendMetadata = fc
    .record({
      id: uploadId,
      offset: size,
      length: fc.option(size, { nil: undefined }),
      checksumAlgorithm: fc.oneof(fc.constantFrom('', 'sha1', 'sha256', 'md5', 'SHA1'), nastyString),
      checksum: fc.uint8Array({ maxLength: 40 }),
    })
    .map((value) => bin(AppendUploadRequestSchema, { payload: { case: 'metadata', value } }));
  const append = fc.array(
    fc.oneof(
      { arbitrary: appendMetadata, weight: 2 },
      {
        arbitrary: fc
          .uint8Array({ maxLength: 4_096 })
          .map((chunk) => bin(AppendUploadRequestSchema, { payload: { case: 'chunk', value: chunk } })),
        weight: 2,
      },
      {
        arbitrary: fc
          .integer({ min: 16_000, max: 70_000 })
          .map((n) => bin(AppendUploadRequestSchema, { payload: { case: 'chunk', value: new Uint8Array(n) } })),
        weight: 1,
      },
      { arbitrary: fc.constant(bin(AppendUploadRequestSchema, {})), weight: 1 },
    ),
    { maxLength: 5 },
  );
  return [
    {
      path: '/switchyard.v1.RouteService/CreateRoute',
      streaming: false,
      message: fc
        .record({ method: nastyString, path: nastyString, handler: nastyString, middleware: fc.array(nastyString, { maxLength: 40 }) })
        .map((r) => bin(CreateRouteRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.RouteService/GetRoute',
      streaming: false,
      message: fc.oneof(
        id.map((value) => bin(GetRouteRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.RouteService/MatchRoute',
      streaming: false,
      message: fc.record({ method: nastyString, path: nastyString }).map((r) => bin(MatchRouteRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/GetAsset',
      streaming: false,
      message: fc.oneof(
        id.map((value) => bin(GetAssetRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.RouteService/ListRoutes',
      streaming: false,
      message: fc.record({ pageSize: fc.integer(), pageToken: nastyString }).map((r) => bin(ListRoutesRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.RouteService/UpdateRoute',
      streaming: false,
      message: fc
        .record({
          id,
          method: fc.option(nastyString, { nil: undefined }),
          path: fc.option(nastyString, { nil: undefined }),
          middleware: fc.option(fc.record({ names: fc.array(nastyString, { maxLength: 40 }) }), { nil: undefined }),
          handler: fc.option(nastyString, { nil: undefined }),
        })
        .map((r) => bin(UpdateRouteRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.RouteService/DeleteRoute',
      streaming: false,
      message: fc.oneof(
        id.map((value) => bin(DeleteRouteRequestSchema, { id: value })),
        rawId,
      ),
    },
    // Mostly revisions that are never valid; mangled bytes may still make a valid request, which streams until the client leaves.
    {
      path: '/switchyard.v1.RouteService/WatchRoutes',
      streaming: false,
      endless: true,
      message: fc.bigInt({ min: -(2n ** 63n), max: -1n }).map((sinceRevision) => bin(WatchRoutesRequestSchema, { sinceRevision })),
    },
    {
      path: '/switchyard.v1.AssetService/ListAssets',
      streaming: false,
      message: fc
        .record({
          pageSize: fc.integer(),
          pageToken: nastyString,
          type: nastyString,
          label: fc.option(nastyString, { nil: undefined }),
          q: nastyString,
        })
        .map((r) => bin(ListAssetsRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/UpdateAsset',
      streaming: false,
      message: fc
        .record({
          id,
          label: fc.option(nastyString, { nil: undefined }),
          name: fc.option(nastyString, { nil: undefined }),
          visibility: fc.option(visibility, { nil: undefined }),
        })
        .map((r) => bin(UpdateAssetRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/DeleteAsset',
      streaming: false,
      message: fc.oneof(
        fc.record({ id, purge: fc.boolean() }).map((r) => bin(DeleteAssetRequestSchema, r)),
        rawId,
      ),
    },
    // Webhooks (issue 42).
    {
      path: '/switchyard.v1.WebhookService/CreateWebhook',
      streaming: false,
      message: fc
        .record({ url: hostileWebhookUrl, events: hostileWebhookEvents, description: nastyString })
        .map((r) => bin(CreateWebhookRequestSchema, r)),
    },
    { path: '/switchyard.v1.WebhookService/ListWebhooks', streaming: false, message: fc.constant(bin(ListWebhooksRequestSchema, {})) },
    { path: '/switchyard.v1.WebhookService/GetWebhook', streaming: false, message: webhookIdOnly(GetWebhookRequestSchema) },
    {
      path: '/switchyard.v1.WebhookService/UpdateWebhook',
      streaming: false,
      message: fc
        .record(
          {
            id: webhookId,
            url: fc.option(hostileWebhookUrl, { nil: undefined }),
            events: hostileWebhookEvents,
            setEvents: fc.boolean(),
            description: fc.option(nastyString, { nil: undefined }),
            enabled: fc.option(fc.boolean(), { nil: undefined }),
          },
          { requiredKeys: ['id'] },
        )
        .map((r) => bin(UpdateWebhookRequestSchema, r)),
    },
    { path: '/switchyard.v1.WebhookService/DeleteWebhook', streaming: false, message: webhookIdOnly(DeleteWebhookRequestSchema) },
    {
      path: '/switchyard.v1.WebhookService/RotateWebhookSecret',
      streaming: false,
      message: webhookIdOnly(RotateWebhookSecretRequestSchema),
    },
    { path: '/switchyard.v1.WebhookService/TestWebhook', streaming: false, message: webhookIdOnly(TestWebhookRequestSchema) },
    {
      path: '/switchyard.v1.WebhookService/ListDeliveries',
      streaming: false,
      message: fc
        .record({
          id: webhookId,
          status: fc.oneof(fc.constantFrom('pending', 'succeeded', 'failed', 'PENDING', ''), nastyString),
          pageSize: fc.oneof(fc.integer(), fc.constantFrom(0, 1, 1000, 1001, -1)),
          pageToken: nastyString,
        })
        .map((r) => bin(ListDeliveriesRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.WebhookService/ResendDelivery',
      streaming: false,
      message: fc.record({ id: webhookId, deliveryId }).map((r) => bin(ResendDeliveryRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.WebhookService/RecoverDeliveries',
      streaming: false,
      message: fc
        .record({ id: webhookId, since })
        .map((r) => bin(RecoverDeliveriesRequestSchema, { id: r.id, ...(r.since === undefined ? {} : { since: r.since }) })),
    },
    // Versions and trash (issue 43).
    {
      path: '/switchyard.v1.AssetService/ListAssetVersions',
      streaming: false,
      message: fc.oneof(
        id.map((value) => bin(ListAssetVersionsRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.AssetService/ReadAssetVersion',
      streaming: false,
      message: fc.record({ id, versionId }).map((r) => bin(ReadAssetVersionRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/RestoreAssetVersion',
      streaming: false,
      message: fc.record({ id, versionId }).map((r) => bin(RestoreAssetVersionRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/ListTrash',
      streaming: false,
      message: fc.record({ pageSize: fc.integer(), pageToken: nastyString }).map((r) => bin(ListTrashRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/RestoreAsset',
      streaming: false,
      message: fc.oneof(
        id.map((value) => bin(RestoreAssetRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.AssetService/PurgeAsset',
      streaming: false,
      message: fc.oneof(
        id.map((value) => bin(PurgeAssetRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.AssetService/BatchDeleteAssets',
      streaming: false,
      message: fc.array(id, { maxLength: 1_100 }).map((ids) => bin(BatchDeleteAssetsRequestSchema, { ids })),
    },
    {
      path: '/switchyard.v1.AssetService/CreateSignedUrl',
      streaming: false,
      message: fc
        .record({
          id,
          expiresIn: bigint,
          transform: fc.option(fc.record({ w: fc.option(fc.nat(), { nil: undefined }), fit: fc.option(nastyString, { nil: undefined }) }), {
            nil: undefined,
          }),
        })
        .map((r) => bin(CreateSignedUrlRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.AssetService/RevokeSignedUrls',
      streaming: false,
      message: id.map((value) => bin(RevokeSignedUrlsRequestSchema, { id: value })),
    },
    {
      path: '/switchyard.v1.AssetService/SetWorkspacePolicy',
      streaming: false,
      message: fc
        .record({
          allowedTypes: fc.array(fc.oneof(fc.constantFrom('image/*', 'text/plain'), nastyString), { maxLength: 120 }),
          maxUploadBytes: fc.option(bigint, { nil: undefined }),
          defaultVisibility: visibility,
          keepVersions: fc.option(fc.oneof(fc.integer(), fc.constantFrom(0, 100, 101, -1)), { nil: undefined }),
          retentionDays: fc.option(fc.oneof(fc.integer(), fc.constantFrom(0, 365, 366, -1)), { nil: undefined }),
        })
        .map((r) => bin(SetWorkspacePolicyRequestSchema, r)),
    },
    {
      path: '/switchyard.v1.FileService/ReadFile',
      streaming: false,
      message: fc.oneof(
        fc
          .record({
            path: filePath,
            rangeStart: fc.option(bigint, { nil: undefined }),
            rangeEnd: fc.option(bigint, { nil: undefined }),
            infoOnly: fc.boolean(),
            query: fc.oneof(nastyString, fc.constantFrom('expires=1&kid=a&sig=b', 'sig=&sig=', '%zz')),
          })
          .map((r) => bin(ReadFileRequestSchema, r)),
        rawStringBytes.map((bytes) => rawStringField(1, bytes)),
      ),
    },
    // Streams: each element is one message; joined into envelopes below.
    {
      path: '/switchyard.v1.AssetService/UploadAsset',
      streaming: true,
      message: upload.map((messages) => Buffer.from(JSON.stringify(messages.map((m) => m.toString('base64'))))),
    },
    {
      path: '/switchyard.v1.AssetService/ReplaceAsset',
      streaming: true,
      message: replace.map((messages) => Buffer.from(JSON.stringify(messages.map((m) => m.toString('base64'))))),
    },
    { path: '/switchyard.v1.UploadService/CreateUpload', streaming: false, message: createUpload },
    {
      path: '/switchyard.v1.UploadService/GetUpload',
      streaming: false,
      message: fc.oneof(
        uploadId.map((value) => bin(GetUploadRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.UploadService/TerminateUpload',
      streaming: false,
      message: fc.oneof(
        uploadId.map((value) => bin(TerminateUploadRequestSchema, { id: value })),
        rawId,
      ),
    },
    {
      path: '/switchyard.v1.UploadService/AppendUpload',
      streaming: true,
      message: append.map((messages) => Buffer.from(JSON.stringify(messages.map((m) => m.toString('base64'))))),
    },
  ];
}

function envelope(flags: number, data: Buffer, declared = data.length): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(declared >>> 0, 1);
  return Buffer.concat([head, data]);
}

/** Hostile calls over the Connect protocol (unary and streaming) and gRPC-Web. */
export function hostileConnectCall(targets: Targets): fc.Arbitrary<HostileRequest> {
  // Raw HTTP requests wait for the whole answer: endless ones are the gRPC fuzzer's.
  const call = fc.constantFrom(...rpcs(targets).filter((rpc) => !rpc.endless)).chain((rpc) =>
    fc.record({
      rpc: fc.constant(rpc),
      payload: rpc.streaming ? rpc.message : fc.oneof(rpc.message, rpc.message, mangled(rpc.message)),
      encoding: rpc.streaming
        ? fc.constantFrom('connect+proto', 'grpc-web+proto', 'connect+json')
        : fc.constantFrom('proto', 'proto', 'json', 'grpc-web+proto', 'connect+proto'),
      envelopeFault: fc.constantFrom('none', 'none', 'none', 'flags', 'short', 'long', 'garbage-after'),
      faultFlags: fc.constantFrom(0x01, 0x02, 0x80, 0xff),
      auth: fc.constantFrom(true, true, true, false),
      extra: fc.constantFrom<[string, string][]>(
        [],
        [],
        [['Connect-Timeout-Ms', '99999999999']],
        [['Connect-Timeout-Ms', 'x']],
        [['Content-Encoding', 'gzip']],
        [['Connect-Content-Encoding', 'br']],
        [['Connect-Protocol-Version', '2']],
        [['Grpc-Encoding', 'snappy']],
      ),
    }),
  );
  return call.map(({ rpc, payload, encoding, envelopeFault, faultFlags, auth, extra }): HostileRequest => {
    let messages: Buffer[] = [payload];
    if (rpc.streaming) messages = (JSON.parse(payload.toString()) as string[]).map((m) => Buffer.from(m, 'base64'));
    let body: Buffer;
    if (encoding === 'proto') body = payload;
    else if (encoding === 'json') body = Buffer.from(`{"id":${JSON.stringify(payload.toString('latin1'))}}`);
    else if (encoding === 'connect+json')
      body = Buffer.concat([
        ...messages.map((m) => envelope(0, Buffer.from(JSON.stringify({ chunk: m.toString('base64') })))),
        envelope(0x02, Buffer.from('{}')),
      ]);
    else {
      const framed = messages.map((m, i) => {
        if (i !== 0) return envelope(0, m);
        if (envelopeFault === 'flags') return envelope(faultFlags, m);
        if (envelopeFault === 'short') return envelope(0, m, m.length + 10);
        if (envelopeFault === 'long') return envelope(0, m, Math.max(0, m.length - 1));
        return envelope(0, m);
      });
      body = Buffer.concat([...framed, envelopeFault === 'garbage-after' ? Buffer.from([0x00, 0x00]) : Buffer.alloc(0)]);
    }
    const headers: [string, string][] = [
      ['Content-Type', `application/${encoding}`],
      ...(auth ? [['Authorization', targets.authorization] as [string, string]] : []),
      ...extra,
    ];
    return { kind: 'connect', method: 'POST', target: rpc.path, headers, body, framing: 'length' };
  });
}
