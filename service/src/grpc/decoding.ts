import type { ServiceDefinition } from '@grpc/grpc-js';
import { invalidArgument, type SwitchyardError } from '@switchyard/core';

/** What a request deserializer hands on for bytes that are not a message of its type. */
export class UndecodableMessage {
  constructor(readonly type: string) {}
}

/**
 * The service definition with request deserializers that never throw. When
 * grpc-js's call to a deserializer throws, it ends the call with INTERNAL,
 * the code of a server bug, and the handler never hears of it; bytes from a
 * client that do not decode are the client's error. So a failure to decode is
 * handed to the handler as an `UndecodableMessage`, which `decoded()` turns
 * into `invalid_argument`.
 */
export function tolerantDeserializers<D extends ServiceDefinition>(definition: D): D {
  const tolerant: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    const type = method.path.split('/').pop() ?? name;
    tolerant[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return method.requestDeserialize(bytes);
        } catch {
          return new UndecodableMessage(`${type} request`);
        }
      },
    };
  }
  return tolerant as D;
}

/** The message, or `invalid_argument` when its bytes did not decode. */
export function decoded<T>(message: T | UndecodableMessage): T {
  if (message instanceof UndecodableMessage) throw undecodable(message);
  return message;
}

function undecodable(message: UndecodableMessage): SwitchyardError {
  return invalidArgument('request', `the bytes of the ${message.type} message are not valid protobuf`);
}
