import { toBinary, type DescFile } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { ReflectionService } from '@grpc/reflection';
import {
  file_grpc_health_v1_health,
  file_switchyard_v1_assets,
  file_switchyard_v1_files,
  file_switchyard_v1_keys,
  file_switchyard_v1_routes,
  file_switchyard_v1_uploads,
  file_switchyard_v1_webhooks,
} from '@switchyard/proto';

/**
 * Server reflection over our protos and the health service, so grpcurl, buf
 * curl and friends can list, describe and call everything without local
 * .proto files. Every file is served from the descriptors embedded in
 * @switchyard/proto (what buf compiled: fully-qualified type names), with every
 * file it imports. proto-loader's own descriptors carry relative type names,
 * which those tools cannot resolve (fullstorydev/grpcurl#459).
 */
export function createReflectionService(): ReflectionService {
  const served = [
    file_switchyard_v1_routes,
    file_switchyard_v1_assets,
    file_switchyard_v1_files,
    file_switchyard_v1_uploads,
    file_switchyard_v1_keys,
    file_switchyard_v1_webhooks,
    file_grpc_health_v1_health,
  ];
  const fileDescriptorProtos = withImports(served).map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)));
  // @grpc/reflection reads only `fileDescriptorProtos` of each entry of a proto-loader package definition,
  // and finds the services in the files.
  return new ReflectionService({ descriptors: { fileDescriptorProtos } } as unknown as ConstructorParameters<typeof ReflectionService>[0]);
}

/** The files and, before them, everything they import. */
function withImports(files: readonly DescFile[]): DescFile[] {
  const seen = new Set<DescFile>();
  const visit = (file: DescFile): void => {
    if (seen.has(file)) return;
    file.dependencies.forEach(visit);
    seen.add(file);
  };
  files.forEach(visit);
  return [...seen];
}
