import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig, ConfigError } from './config.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'cfg-'));

describe('AppConfig', () => {
  it('runs on embedded defaults with generated, persisted secrets', () => {
    const dir = dataDir();
    const a = new AppConfig({ DATA_DIR: dir });
    expect(a.port).toBe(3000);
    expect(a.databaseUrl).toBeUndefined();
    expect(a.redisUrl).toBeUndefined();
    expect(a.runJobsInApi).toBe(true);
    expect(a.rateLimitWindowSeconds).toBe(60);
    expect(a.jwtSecret.length).toBeGreaterThanOrEqual(32);
    const b = new AppConfig({ DATA_DIR: dir });
    expect(b.jwtSecret).toBe(a.jwtSecret);
    expect(b.tokenEncryptionKey).toBe(a.tokenEncryptionKey);
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')).JWT_SECRET).toBe(a.jwtSecret);
  });

  it('requires secrets in production', () => {
    expect(() => new AppConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), DATABASE_URL: 'postgres://db/app' })).toThrow(
      new ConfigError('JWT_SECRET is required when NODE_ENV=production'),
    );
  });

  describe('in production', () => {
    const strong = {
      JWT_SECRET: 'Qm9Vq7Xr2Lw8Tz4Np6Hs1Kd3Fg5Jc0Ab',
      TOKEN_ENCRYPTION_KEY: 'vT3nR8pW1xK6mZ4qL9sD2fH7jB5cG0yE',
    };
    const prod = (env: Record<string, string>) => () =>
      new AppConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), DATABASE_URL: 'postgres://db/app', ...strong, ...env });

    it('starts with a database URL and strong, distinct secrets', () => {
      const c = prod({})();
      expect(c.production).toBe(true);
      expect(c.jwtSecret).toBe(strong.JWT_SECRET);
    });

    it('refuses to start without DATABASE_URL, in one line naming it', () => {
      expect(() => new AppConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), ...strong })).toThrow(
        new ConfigError('DATABASE_URL is required when NODE_ENV=production (the embedded PGlite database is for development only)'),
      );
    });

    it.each([
      ['short', 'Qm9Vq7Xr2Lw8Tz4Np6Hs1Kd3Fg5', /JWT_SECRET must be at least 32 characters/],
      ['one repeated character', 'a'.repeat(48), /JWT_SECRET is too weak for production: it must use at least 8 different characters/],
      ['a small alphabet', 'abcabcabddcabcabcabcabdcbabcabcaccab', /JWT_SECRET is too weak .* at least 8 different characters/],
      ['a shorter string repeated', 'Xk3!pQ9z'.repeat(5), /JWT_SECRET is too weak for production: it must not be a shorter string repeated/],
      ['a placeholder', 'please-change-me-before-going-live-2025', /JWT_SECRET is too weak .* placeholder "changeme"/],
      ['the word secret', 'my-Super-SECRET-jwt-signing-key-for-prod', /JWT_SECRET is too weak .* placeholder "secret"/],
    ])('refuses a weak JWT_SECRET: %s', (_what, value, message) => {
      expect(prod({ JWT_SECRET: value })).toThrow(message);
    });

    it('refuses a weak TOKEN_ENCRYPTION_KEY, without printing it', () => {
      const value = 'ThisIsOurPassword!ThisIsOurPassword!x';
      expect(prod({ TOKEN_ENCRYPTION_KEY: value })).toThrow(/^TOKEN_ENCRYPTION_KEY is too weak for production: it must not contain the placeholder "password"/);
      expect(prod({ TOKEN_ENCRYPTION_KEY: value })).not.toThrow(value);
    });

    it('refuses two secrets with the same value, naming both', () => {
      expect(prod({ TOKEN_ENCRYPTION_KEY: strong.JWT_SECRET })).toThrow(
        new ConfigError('JWT_SECRET and TOKEN_ENCRYPTION_KEY must not be equal: give each secret its own value'),
      );
      expect(prod({ ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: strong.TOKEN_ENCRYPTION_KEY })).toThrow(
        /TOKEN_ENCRYPTION_KEY and ADMIN_PASSWORD must not be equal/,
      );
      expect(prod({ INSTAGRAM_CLIENT_ID: 'ig', INSTAGRAM_CLIENT_SECRET: 'shared-client-secret-value', TIKTOK_CLIENT_ID: 'tt', TIKTOK_CLIENT_SECRET: 'shared-client-secret-value' })).toThrow(
        /INSTAGRAM_CLIENT_SECRET and TIKTOK_CLIENT_SECRET must not be equal/,
      );
    });

    it('keeps development and tests free of the production rules', () => {
      const dev = new AppConfig({ DATA_DIR: dataDir(), JWT_SECRET: 'a'.repeat(32), TOKEN_ENCRYPTION_KEY: 'a'.repeat(32) });
      expect(dev.databaseUrl).toBeUndefined();
      expect(dev.jwtSecret).toBe(dev.tokenEncryptionKey);
    });
  });

  it('names the variable of a bad value', () => {
    const d = dataDir();
    expect(() => new AppConfig({ DATA_DIR: d, PORT: 'eighty' })).toThrow(/PORT must be a whole number/);
    expect(() => new AppConfig({ DATA_DIR: d, DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must use postgres/);
    expect(() => new AppConfig({ DATA_DIR: d, REDIS_URL: 'not a url' })).toThrow(/REDIS_URL must be a URL/);
    expect(() => new AppConfig({ DATA_DIR: d, MIGRATIONS_RUN: 'maybe' })).toThrow(/MIGRATIONS_RUN must be true or false/);
    expect(() => new AppConfig({ DATA_DIR: d, STORAGE_DRIVER: 's3' })).toThrow(/S3_ENDPOINT is required/);
    expect(() => new AppConfig({ DATA_DIR: d, ADMIN_EMAIL: 'a@b.c' })).toThrow(/set together/);
  });

  it('leaves jobs to workers once Redis is configured', () => {
    const c = new AppConfig({ DATA_DIR: dataDir(), REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(c.runJobsInApi).toBe(false);
    const d = new AppConfig({ DATA_DIR: dataDir(), REDIS_URL: 'redis://127.0.0.1:6379', RUN_JOBS_IN_API: 'true' });
    expect(d.runJobsInApi).toBe(true);
  });
});
