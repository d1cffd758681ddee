import { create, createFileRegistry, type Message } from '@bufbuild/protobuf';
import type { GenMessage, GenService } from '@bufbuild/protobuf/codegenv2';
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

// grpc.health.v1 (https://github.com/grpc/grpc/blob/master/doc/health-checking.md),
// described by hand: its .proto is not part of this repository's buf module,
// and the gateway needs only Check.

export enum ServingStatus {
  UNKNOWN = 0,
  SERVING = 1,
  NOT_SERVING = 2,
  SERVICE_UNKNOWN = 3,
}

export type HealthCheckRequest = Message<'grpc.health.v1.HealthCheckRequest'> & { service: string };
export type HealthCheckResponse = Message<'grpc.health.v1.HealthCheckResponse'> & { status: ServingStatus };

const LABEL_OPTIONAL = FieldDescriptorProto_Label.OPTIONAL;
const file = create(FileDescriptorProtoSchema, {
  name: 'grpc/health/v1/health.proto',
  package: 'grpc.health.v1',
  syntax: 'proto3',
  messageType: [
    { name: 'HealthCheckRequest', field: [{ name: 'service', jsonName: 'service', number: 1, label: LABEL_OPTIONAL, type: FieldDescriptorProto_Type.STRING }] },
    {
      name: 'HealthCheckResponse',
      field: [
        {
          name: 'status',
          jsonName: 'status',
          number: 1,
          label: LABEL_OPTIONAL,
          type: FieldDescriptorProto_Type.ENUM,
          typeName: '.grpc.health.v1.HealthCheckResponse.ServingStatus',
        },
      ],
      enumType: [
        {
          name: 'ServingStatus',
          value: Object.entries(ServingStatus)
            .filter(([, number]) => typeof number === 'number')
            .map(([name, number]) => ({ name, number: number as number })),
        },
      ],
    },
  ],
  service: [
    {
      name: 'Health',
      method: [{ name: 'Check', inputType: '.grpc.health.v1.HealthCheckRequest', outputType: '.grpc.health.v1.HealthCheckResponse' }],
    },
  ],
});

const registry = createFileRegistry(file, () => undefined);

export const HealthService = registry.getService('grpc.health.v1.Health') as GenService<{
  check: { methodKind: 'unary'; input: GenMessage<HealthCheckRequest>; output: GenMessage<HealthCheckResponse> };
}>;
