import { SwitchyardError } from '@switchyard/core';
import type { ServiceConfig } from './config.js';
import { dataDirSecret } from './data-dir-secret.js';

export const AUTH_SECRET_FILE = 'auth-secret';

/**
 * The HS256 key of this deployment: AUTH_SECRET when set, else the secret kept
 * in `DATA_DIR/auth-secret`, generated on first use.
 */
export async function resolveAuthSecret(config: Pick<ServiceConfig, 'auth' | 'dataDir'>): Promise<string> {
  if (config.auth.kind !== 'hmac') {
    throw new SwitchyardError('invalid_argument', 'tokens are verified against AUTH_JWKS_URL; there is no local secret');
  }
  return config.auth.secret ?? (await dataDirSecret(config.dataDir, AUTH_SECRET_FILE));
}
