import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { displayPrefix, hashApiKey, issueApiKeySecret, looksLikeApiKey } from './api-key-secret.js';

describe('API key secrets', () => {
  it('issues psk_ keys carrying 32 random bytes in base64url', () => {
    const { secret } = issueApiKeySecret();
    expect(secret).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(4), 'base64url')).toHaveLength(32);
  });

  it('never issues the same secret twice', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => issueApiKeySecret().secret));
    expect(secrets.size).toBe(200);
  });

  it('stores a SHA-256 hex digest of the secret, not the secret', () => {
    const issued = issueApiKeySecret();
    expect(issued.hash).toBe(createHash('sha256').update(issued.secret).digest('hex'));
    expect(issued.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.hash).not.toContain(issued.secret.slice(4, 20));
    expect(hashApiKey(issued.secret)).toBe(issued.hash);
    expect(hashApiKey(`${issued.secret}x`)).not.toBe(issued.hash);
  });

  it('shows a 12-character prefix that starts the secret', () => {
    const issued = issueApiKeySecret();
    expect(issued.prefix).toHaveLength(12);
    expect(issued.secret.startsWith(issued.prefix)).toBe(true);
    expect(displayPrefix('psk_abcdefghijklmnop')).toBe('psk_abcdefgh');
  });

  it('recognises only the shape it issues', () => {
    expect(looksLikeApiKey(issueApiKeySecret().secret)).toBe(true);
    expect(looksLikeApiKey('psk_short')).toBe(false);
    expect(looksLikeApiKey(`psk_${'a'.repeat(44)}`)).toBe(false);
    expect(looksLikeApiKey(`psk_${'a'.repeat(42)}!`)).toBe(false);
    expect(looksLikeApiKey(`pk_${'a'.repeat(43)}`)).toBe(false);
    expect(looksLikeApiKey('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
  });
});
