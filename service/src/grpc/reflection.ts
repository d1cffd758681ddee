import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';

/** proto/ at the repository root: the one source of truth for the wire. */
const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));
const PROTO_FILES = ['switchyard/v1/routes.proto', 'switchyard/v1/assets.proto', 'switchyard/v1/files.proto'];

/**
 * Server reflection over our protos and the health service, so grpcurl and
 * friends can list and call everything without local .proto files.
 */
export function createReflectionService(): ReflectionService {
  // The health proto lives in its package as health/v1/health.proto; keep that import name.
  const healthRoot = resolve(dirname(healthProtoPath), '../..');
  const definition = loadSync([...PROTO_FILES, 'health/v1/health.proto'], {
    includeDirs: [PROTO_ROOT, healthRoot],
  });
  return new ReflectionService(definition);
}
