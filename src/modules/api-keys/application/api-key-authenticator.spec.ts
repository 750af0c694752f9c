import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { CREDENTIAL_RECHECK_MS } from '../../../platform/auth/index.js';
import { MemoryCounterStore } from '../../../platform/rate-limit/counter-store.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { hashApiKey, issueApiKeySecret } from '../domain/api-key-secret.js';
import type { ApiKeysRepository, KeyHolder } from '../infrastructure/api-keys.repository.js';
import { DatabaseApiKeyAuthenticator } from './api-key-authenticator.js';

const config = new AppConfig({ JWT_SECRET: 's'.repeat(40), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32) });

class FakeKeys {
  holders = new Map<string, KeyHolder>();
  lookups = 0;
  touches: string[] = [];
  failTouch = false;
  async findHolderByHash(hash: string) {
    this.lookups += 1;
    const holder = this.holders.get(hash);
    return holder ? { ...holder } : null;
  }
  async touchLastUsed(_ws: string, id: string) {
    this.touches.push(id);
    if (this.failTouch) throw new Error('database down');
  }
}

function setup(lastUsedAt: Date | null = null, expiresAt: Date | null = null) {
  const keys = new FakeKeys();
  const { secret, hash } = issueApiKeySecret();
  keys.holders.set(hash, {
    keyId: 'key_1',
    workspaceId: 'ws_1',
    userId: 'user_1',
    scopes: ['credits:read'],
    lastUsedAt,
    expiresAt,
    plan: 'agency',
    role: 'user',
    memberRole: 'owner',
  });
  const limiter = new RateLimiter(config, new MemoryCounterStore());
  return { keys, secret, hash, limiter, auth: new DatabaseApiKeyAuthenticator(keys as unknown as ApiKeysRepository, limiter) };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('DatabaseApiKeyAuthenticator', () => {
  it("answers an api_key caller with the key scopes and its maker's role capped at admin, its request counted", async () => {
    const { auth, secret } = setup();
    expect(await auth.authenticate(secret)).toEqual({
      caller: { kind: 'api_key', userId: 'user_1', workspaceId: 'ws_1', role: 'user', workspaceRole: 'admin', plan: 'agency', scopes: ['credits:read'], apiKeyId: 'key_1' },
      hits: 1,
    });
    expect((await auth.authenticate(secret))?.hits).toBe(2);
  });

  it('answers null for unknown keys, counting nothing, and skips the lookup for malformed ones', async () => {
    const { auth, keys } = setup();
    expect(await auth.authenticate(issueApiKeySecret().secret)).toBeNull();
    expect(keys.lookups).toBe(1);
    expect(await auth.authenticate('psk_nope')).toBeNull();
    expect(keys.lookups).toBe(1);
  });

  it('looks the key up by its hash', async () => {
    const { auth, keys, secret } = setup();
    keys.holders.set(hashApiKey(secret), { ...keys.holders.values().next().value!, keyId: 'key_2' });
    expect((await auth.authenticate(secret))?.caller.apiKeyId).toBe('key_2');
  });

  it('reads the key twice (the second time under the stamp read first), then answers from memory while the stamp stays put', async () => {
    const { auth, keys, secret } = setup();
    const now = Date.now();
    for (let i = 0; i < 5; i++) expect((await auth.authenticate(secret, now + i))?.hits).toBe(i + 1);
    expect(keys.lookups).toBe(2);
  });

  it('refuses a revoked key on its next request once the stamp moves', async () => {
    const { auth, keys, secret, hash, limiter } = setup();
    for (let i = 0; i < 3; i++) await auth.authenticate(secret);
    keys.holders.delete(hash);
    expect(await auth.authenticate(secret)).not.toBeNull();
    await limiter.bumpAccessStamp('ws_1');
    expect(await auth.authenticate(secret)).toBeNull();
    expect(await auth.authenticate(secret)).toBeNull();
  });

  it('answers a changed role or plan after the stamp moves', async () => {
    const { auth, keys, secret, hash, limiter } = setup();
    for (let i = 0; i < 3; i++) await auth.authenticate(secret);
    keys.holders.set(hash, { ...keys.holders.get(hash)!, memberRole: 'viewer', plan: 'pro' });
    await limiter.bumpAccessStamp('ws_1');
    expect((await auth.authenticate(secret))?.caller).toMatchObject({ workspaceRole: 'viewer', plan: 'pro' });
  });

  it(`reads the key again after ${CREDENTIAL_RECHECK_MS / 1000} s, and never answers it past its expiry`, async () => {
    const now = Date.now();
    const { auth, keys, secret, hash } = setup(null, new Date(now + CREDENTIAL_RECHECK_MS / 2));
    await auth.authenticate(secret, now);
    await auth.authenticate(secret, now + 1);
    expect(keys.lookups).toBe(2);
    await auth.authenticate(secret, now + 2);
    expect(keys.lookups).toBe(2);
    // The repository refuses an expired key; memory must not outlive the expiry it was told.
    keys.holders.delete(hash);
    expect(await auth.authenticate(secret, now + CREDENTIAL_RECHECK_MS / 2)).toBeNull();
    expect(keys.lookups).toBe(3);
  });

  it('rechecks a key afresh, counting nothing', async () => {
    const { auth, keys, secret, hash } = setup();
    await auth.authenticate(secret);
    await auth.authenticate(secret);
    expect(await auth.recheck(secret)).toMatchObject({ apiKeyId: 'key_1' });
    keys.holders.delete(hash);
    expect(await auth.recheck(secret)).toBeNull();
    expect(keys.lookups).toBe(4);
  });

  it('touches last use once per minute per key, not on every request', async () => {
    const { auth, keys, secret } = setup(null);
    for (let i = 0; i < 5; i++) await auth.authenticate(secret);
    await flush();
    expect(keys.touches).toEqual(['key_1']);
  });

  it('does not touch a key used within the last minute, whether read or remembered', async () => {
    const { auth, keys, secret } = setup(new Date(Date.now() - 5_000));
    for (let i = 0; i < 4; i++) await auth.authenticate(secret);
    await flush();
    expect(keys.touches).toEqual([]);
  });

  it('still authenticates when recording use fails, and retries on the next request', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { auth, keys, secret } = setup(null);
    keys.failTouch = true;
    expect(await auth.authenticate(secret)).not.toBeNull();
    await flush();
    await flush();
    expect(await auth.authenticate(secret)).not.toBeNull();
    await flush();
    expect(keys.touches).toEqual(['key_1', 'key_1']);
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ msg: 'could not record API key use', api_key_id: 'key_1' }));
    logged.mockRestore();
  });
});
