import type { Caller } from '../../core/index.js';

/** Resolves a session access token to its caller, or null when invalid, expired or ended. */
export abstract class SessionAuthenticator {
  abstract authenticate(token: string): Promise<Caller | null>;
}

/** Resolves an API key secret to its caller, or null when unknown, expired or revoked. */
export abstract class ApiKeyAuthenticator {
  abstract authenticate(key: string): Promise<Caller | null>;
}

/** API key secrets start with this; access tokens are JWTs. The prefix tells them apart. */
export const API_KEY_PREFIX = 'psk_';
