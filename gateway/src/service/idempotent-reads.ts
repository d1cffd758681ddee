import type { DescMethod } from '@bufbuild/protobuf';

/**
 * Unary calls that only read: safe to send again when the connection they
 * went out on died, since a second attempt changes nothing even if the first
 * reached the service. Every other call (writes, uploads, signed-url
 * minting) is left to its caller; streaming calls are never retried here.
 * Kept by name, as the .proto files declare no `idempotency_level`;
 * idempotent-reads.test.ts checks each name against the services.
 */
export const IDEMPOTENT_READS: ReadonlySet<string> = new Set([
  'switchyard.v1.AssetService/GetAsset',
  'switchyard.v1.AssetService/ListAssets',
  'switchyard.v1.AssetService/GetWorkspaceUsage',
  'switchyard.v1.AssetService/GetWorkspacePolicy',
  'switchyard.v1.AssetService/ListAssetChanges',
  'switchyard.v1.AssetService/ListAssetVersions',
  'switchyard.v1.AssetService/ListTrash',
  'switchyard.v1.RouteService/GetRoute',
  'switchyard.v1.RouteService/MatchRoute',
  'switchyard.v1.RouteService/ListRoutes',
  'switchyard.v1.RouteService/ListRouteChanges',
  'switchyard.v1.UploadService/GetUpload',
  'switchyard.v1.KeyService/GetKey',
  'switchyard.v1.KeyService/ListKeys',
  'switchyard.v1.KeyService/GetCaller',
  'switchyard.v1.WebhookService/GetWebhook',
  'switchyard.v1.WebhookService/ListWebhooks',
  'switchyard.v1.WebhookService/ListDeliveries',
  'grpc.health.v1.Health/Check',
  'grpc.health.v1.Health/List',
]);

export function isIdempotentRead(method: DescMethod): boolean {
  return method.methodKind === 'unary' && IDEMPOTENT_READS.has(`${method.parent.typeName}/${method.name}`);
}
