// switchyard.v1 as Protobuf-ES types, service descriptors and file descriptors,
// generated from the .proto files beside this package (`npm run gen`), and
// grpc.health.v1, the standard health service the service runs.

export * from './gen/switchyard/v1/routes_pb.js';
export * from './gen/switchyard/v1/assets_pb.js';
export * from './gen/switchyard/v1/files_pb.js';
export * from './gen/switchyard/v1/uploads_pb.js';
export * from './gen/switchyard/v1/keys_pb.js';
export * from './gen/switchyard/v1/webhooks_pb.js';
export * from './gen/grpc/health/v1/health_pb.js';
