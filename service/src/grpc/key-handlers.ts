import { SwitchyardError, type ApiKey, type ApiKeyWithSecret, type KeyService } from '@switchyard/core';
import type {
  Caller,
  CreateKeyRequest,
  GetCallerRequest,
  CreateKeyResponse,
  GetKeyRequest,
  Key,
  KeyServiceServer,
  ListKeysRequest,
  ListKeysResponse,
  RevokeKeyRequest,
  RevokeKeyResponse,
  RollKeyRequest,
} from '../gen/switchyard/v1/keys.js';
import type { Rpc } from './rpc.js';

/** KeyService over the core's keys; without a key store every call is `unimplemented`. */
export function keyHandlers(keys: KeyService | undefined, rpc: Rpc): KeyServiceServer {
  const service = (): KeyService => {
    if (keys === undefined) throw new SwitchyardError('unimplemented', 'this service keeps no API keys');
    return keys;
  };
  return {
    createKey: rpc.unary<CreateKeyRequest, CreateKeyResponse>('CreateKey', async (request, { principal }) =>
      withSecretToMessage(
        await service().create(principal, {
          name: request.name,
          scopes: request.scopes,
          // Refused as missing by the core when unset.
          expiresAt: request.expiresAt as Date,
        }),
      ),
    ),
    listKeys: rpc.unary<ListKeysRequest, ListKeysResponse>('ListKeys', async (request, { principal }) => {
      const page = await service().list(principal, { pageSize: request.pageSize, pageToken: request.pageToken });
      return { keys: page.keys.map(keyToMessage), nextPageToken: page.nextPageToken };
    }),
    getKey: rpc.unary<GetKeyRequest, Key>('GetKey', async (request, { principal }) =>
      keyToMessage(await service().get(principal, request.id)),
    ),
    revokeKey: rpc.unary<RevokeKeyRequest, RevokeKeyResponse>('RevokeKey', async (request, { principal }) => {
      await service().revoke(principal, request.id);
      return {};
    }),
    rollKey: rpc.unary<RollKeyRequest, CreateKeyResponse>('RollKey', async (request, { principal }) =>
      withSecretToMessage(await service().roll(principal, request.id, request.graceSeconds)),
    ),
    // Any verified caller, token or key: the credential itself is the question.
    getCaller: rpc.unary<GetCallerRequest, Caller>('GetCaller', async (_request, { principal }) => ({
      subject: principal.subject,
      workspace: principal.workspace,
      scopes: [...principal.scopes],
      keyId: principal.keyId ?? '',
      expiresAt: principal.expiresAt,
    })),
  };
}

export function keyToMessage(key: ApiKey): Key {
  return {
    id: key.id,
    name: key.name,
    scopes: [...key.scopes],
    createdBy: key.createdBy,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
  };
}

function withSecretToMessage(key: ApiKeyWithSecret): CreateKeyResponse {
  return { key: keyToMessage(key), secret: key.secret };
}
