import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { API_KEY_RECHECK_STRATEGY, API_KEY_STRATEGY, apiKeyOf, type Authenticated, type CredentialRequest } from '../../../platform/auth/index.js';
import { DatabaseApiKeyAuthenticator } from './api-key-authenticator.js';

/**
 * `psk_` API keys for the global guard and the socket gateway: the bearer token looked up by its
 * hash. A custom strategy rather than passport-http-bearer, which would also take a key from the
 * body or the query string and refuse a header the guard accepts; this one reads the header exactly
 * as the guard does. The key check counts the request, as the session check does.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(CustomStrategy, API_KEY_STRATEGY) {
  constructor(private readonly keys: DatabaseApiKeyAuthenticator) {
    super();
  }

  /** A request already counted (an MCP tool's route call) is checked afresh and not counted again. */
  async validate(req: CredentialRequest): Promise<Authenticated | null> {
    const key = apiKeyOf(req);
    if (key !== null && !req.counted) return this.keys.authenticate(key);
    return rechecked(this.keys, key);
  }
}

/** The same key read afresh, counting nothing: for a socket held open with it. */
@Injectable()
export class ApiKeyRecheckStrategy extends PassportStrategy(CustomStrategy, API_KEY_RECHECK_STRATEGY) {
  constructor(private readonly keys: DatabaseApiKeyAuthenticator) {
    super();
  }

  async validate(req: CredentialRequest): Promise<Authenticated | null> {
    return rechecked(this.keys, apiKeyOf(req));
  }
}

/** The key's caller read afresh, nothing counted; null for no key or one no longer valid. */
async function rechecked(keys: DatabaseApiKeyAuthenticator, key: string | null): Promise<Authenticated | null> {
  const caller = key === null ? null : await keys.recheck(key);
  return caller && { caller };
}
