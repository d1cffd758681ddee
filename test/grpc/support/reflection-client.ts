import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { credentials, loadPackageDefinition, type Client, type ClientDuplexStream } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const require = createRequire(import.meta.url);
/** The reflection proto shipped with @grpc/reflection, as any reflection client would use it. */
const REFLECTION_PROTO = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1/reflection.proto');

interface ReflectionResponse {
  listServicesResponse?: { service: Array<{ name: string }> };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

type ReflectionClient = Client & { serverReflectionInfo(): ClientDuplexStream<Record<string, string>, ReflectionResponse> };

function reflectionClient(address: string): ReflectionClient {
  const definition = loadPackageDefinition(loadSync(REFLECTION_PROTO, { keepCase: false })) as unknown as {
    grpc: {
      reflection: {
        v1: { ServerReflection: new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => ReflectionClient };
      };
    };
  };
  return new definition.grpc.reflection.v1.ServerReflection(address, credentials.createInsecure());
}

async function ask(address: string, request: Record<string, string>): Promise<ReflectionResponse> {
  const client = reflectionClient(address);
  try {
    const call = client.serverReflectionInfo();
    const answer = new Promise<ReflectionResponse>((resolve, reject) => call.once('data', resolve).once('error', reject));
    call.write(request);
    call.end();
    return await answer;
  } finally {
    client.close();
  }
}

/** Service names the server lists through grpc.reflection.v1. */
export async function listServicesByReflection(address: string): Promise<string[]> {
  const response = await ask(address, { listServices: '' });
  return (response.listServicesResponse?.service ?? []).map((service) => service.name);
}

/** Serialized FileDescriptorProtos of the file defining `symbol`. */
export async function fileContainingSymbol(address: string, symbol: string): Promise<Buffer[]> {
  const response = await ask(address, { fileContainingSymbol: symbol });
  if (response.errorResponse) throw new Error(response.errorResponse.errorMessage);
  return response.fileDescriptorResponse?.fileDescriptorProto ?? [];
}
