import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { hashApiKey, issueApiKeySecret } from '../domain/api-key-secret.js';
import type { ApiKeysRepository, KeyHolder } from '../infrastructure/api-keys.repository.js';
import { DatabaseApiKeyAuthenticator } from './api-key-authenticator.js';

class FakeKeys {
  holders = new Map<string, KeyHolder>();
  lookups = 0;
  touches: string[] = [];
  failTouch = false;
  async findHolderByHash(hash: string) {
    this.lookups += 1;
    return this.holders.get(hash) ?? null;
  }
  async touchLastUsed(_ws: string, id: string) {
    this.touches.push(id);
    if (this.failTouch) throw new Error('database down');
  }
}

function setup(lastUsedAt: Date | null = null) {
  const keys = new FakeKeys();
  const { secret, hash } = issueApiKeySecret();
  keys.holders.set(hash, {
    keyId: 'key_1',
    workspaceId: 'ws_1',
    userId: 'user_1',
    scopes: ['credits:read'],
    lastUsedAt,
    plan: 'agency',
    role: 'user', memberRole: 'owner',
  });
  return { keys, secret, auth: new DatabaseApiKeyAuthenticator(keys as unknown as ApiKeysRepository) };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('DatabaseApiKeyAuthenticator', () => {
  it("answers an api_key caller with the key scopes and its maker's role capped at admin", async () => {
    const { auth, secret } = setup();
    expect(await auth.authenticate(secret)).toEqual({
      kind: 'api_key',
      userId: 'user_1',
      workspaceId: 'ws_1',
      role: 'user',
      workspaceRole: 'admin',
      plan: 'agency',
      scopes: ['credits:read'],
      apiKeyId: 'key_1',
    });
  });

  it('answers null for unknown keys and skips the lookup for malformed ones', async () => {
    const { auth, keys } = setup();
    expect(await auth.authenticate(issueApiKeySecret().secret)).toBeNull();
    expect(keys.lookups).toBe(1);
    expect(await auth.authenticate('psk_nope')).toBeNull();
    expect(keys.lookups).toBe(1);
  });

  it('looks the key up by its hash', async () => {
    const { auth, keys, secret } = setup();
    keys.holders.set(hashApiKey(secret), { ...keys.holders.values().next().value!, keyId: 'key_2' });
    expect((await auth.authenticate(secret))?.apiKeyId).toBe('key_2');
  });

  it('touches last use once per minute per key, not on every request', async () => {
    const { auth, keys, secret } = setup(null);
    for (let i = 0; i < 5; i++) await auth.authenticate(secret);
    await flush();
    expect(keys.touches).toEqual(['key_1']);
  });

  it('does not touch a key used within the last minute', async () => {
    const { auth, keys, secret } = setup(new Date(Date.now() - 5_000));
    await auth.authenticate(secret);
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
