import { describe, expect, it } from '@jest/globals';
import passport from 'passport';
import { API_KEY_STRATEGY, authenticateToken, type Authenticated } from '../../../platform/auth/index.js';
import { AppConfig } from '../../../config/index.js';
import { MemoryCounterStore } from '../../../platform/rate-limit/counter-store.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { issueApiKeySecret } from '../domain/api-key-secret.js';
import type { ApiKeysRepository, KeyHolder } from '../infrastructure/api-keys.repository.js';
import { DatabaseApiKeyAuthenticator } from './api-key-authenticator.js';
import { ApiKeyStrategy } from './api-key-strategy.js';

const config = new AppConfig({ JWT_SECRET: 's'.repeat(40), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32) });

function setup() {
  const { secret, hash } = issueApiKeySecret();
  const holder: KeyHolder = { keyId: 'key_1', workspaceId: 'ws_1', userId: 'user_1', scopes: ['credits:read'], lastUsedAt: new Date(), expiresAt: null, plan: 'agency', role: 'user', memberRole: 'owner' };
  const keys = { lookups: 0, findHolderByHash: async (h: string) => ((keys.lookups += 1), h === hash ? holder : null) };
  // Constructing the strategy registers it with passport under its name, as the module does at boot.
  new ApiKeyStrategy(new DatabaseApiKeyAuthenticator(keys as unknown as ApiKeysRepository, new RateLimiter(config, new MemoryCounterStore())));
  return { secret, keys };
}

/** Runs the strategy on an HTTP-like request, as the global guard does. */
function authenticateRequest(req: object): Promise<Authenticated | false> {
  return new Promise((resolve, reject) => {
    passport.authenticate(API_KEY_STRATEGY, { session: false }, (err: Error | null, user: Authenticated | false) => (err ? reject(err) : resolve(user)))(req, {}, reject);
  });
}

describe('the API key strategy', () => {
  it('answers the key holder as an api_key caller, with the request counted against its workspace', async () => {
    const { secret } = setup();
    const found = await authenticateToken(API_KEY_STRATEGY, secret);
    expect(found).toEqual({ caller: expect.objectContaining({ kind: 'api_key', workspaceId: 'ws_1', apiKeyId: 'key_1', scopes: ['credits:read'] }), hits: 1 });
  });

  it('refuses an unknown key, and a session token without a lookup', async () => {
    const { keys } = setup();
    expect(await authenticateToken(API_KEY_STRATEGY, issueApiKeySecret().secret)).toBeNull();
    expect(keys.lookups).toBe(1);
    expect(await authenticateToken(API_KEY_STRATEGY, 'eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBeNull();
    expect(keys.lookups).toBe(1);
  });

  it('reads the Authorization header as the guard does, and never a key from the body or query string', async () => {
    const { secret } = setup();
    expect(await authenticateRequest({ headers: { authorization: `bearer \t ${secret}` } })).toMatchObject({ caller: { apiKeyId: 'key_1' } });
    expect(await authenticateRequest({ headers: {}, body: { access_token: secret }, query: { access_token: secret } })).toBe(false);
  });

  it('checks a request already counted (an MCP tool\'s loopback route call) afresh, without counting it again', async () => {
    const { secret, keys } = setup();
    await authenticateToken(API_KEY_STRATEGY, secret);
    await authenticateToken(API_KEY_STRATEGY, secret);
    const before = keys.lookups;
    const found = await authenticateRequest({ headers: { authorization: `Bearer ${secret}` }, counted: true });
    expect(found).toEqual({ caller: expect.objectContaining({ apiKeyId: 'key_1' }) });
    expect(keys.lookups).toBe(before + 1);
    expect((await authenticateToken(API_KEY_STRATEGY, secret))?.hits).toBe(3);
  });
});
