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

  it('signs media with MEDIA_SIGNING_KEY when strong and distinct, else with a key derived from JWT_SECRET under its own label', () => {
    const jwt = 'j'.repeat(40);
    const enc = 'e'.repeat(40);
    const base = { DATA_DIR: dataDir(), JWT_SECRET: jwt, TOKEN_ENCRYPTION_KEY: enc };
    const derived = new AppConfig(base).mediaSigningKey;
    expect(derived.length).toBeGreaterThanOrEqual(32);
    expect(derived).not.toBe(jwt);
    expect(new AppConfig(base).mediaSigningKey).toBe(derived);
    expect(new AppConfig({ ...base, JWT_SECRET: 'k'.repeat(40) }).mediaSigningKey).not.toBe(derived);
    expect(new AppConfig({ ...base, MEDIA_SIGNING_KEY: 'm'.repeat(32) }).mediaSigningKey).toBe('m'.repeat(32));
    expect(() => new AppConfig({ ...base, MEDIA_SIGNING_KEY: 'short' })).toThrow(new ConfigError('MEDIA_SIGNING_KEY must be at least 32 characters'));
    expect(() => new AppConfig({ ...base, MEDIA_SIGNING_KEY: jwt })).toThrow(/MEDIA_SIGNING_KEY must differ/);
    expect(() => new AppConfig({ ...base, MEDIA_SIGNING_KEY: enc })).toThrow(/MEDIA_SIGNING_KEY must differ/);
    expect(new AppConfig(base).mediaUrlTtlSeconds).toBe(3600);
    expect(() => new AppConfig({ ...base, MEDIA_URL_TTL_SECONDS: '30' })).toThrow(/MEDIA_URL_TTL_SECONDS must be a whole number from 60/);
  });

  describe('in production', () => {
    const strong = {
      JWT_SECRET: 'Qm9Vq7Xr2Lw8Tz4Np6Hs1Kd3Fg5Jc0Ab',
      TOKEN_ENCRYPTION_KEY: 'vT3nR8pW1xK6mZ4qL9sD2fH7jB5cG0yE',
    };
    const prod = (env: Record<string, string>) => () =>
      new AppConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), DATABASE_URL: 'postgres://db/app', ...strong, ...env });

    it('refuses OUTBOUND_ALLOW_HOSTS: user URLs may never reach private addresses in production', () => {
      expect(prod({ OUTBOUND_ALLOW_HOSTS: '127.0.0.1:9000' })).toThrow(/^OUTBOUND_ALLOW_HOSTS must be empty when NODE_ENV=production/);
      expect(prod({ OUTBOUND_ALLOW_HOSTS: ' , ' })().outboundAllowHosts).toEqual([]);
    });

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
      expect(prod({ MEDIA_SIGNING_KEY: 'a'.repeat(40) })).toThrow(/MEDIA_SIGNING_KEY is too weak for production/);
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

  it('bounds a stop at 25 s unless SHUTDOWN_TIMEOUT_SECONDS says otherwise (1 to 600)', () => {
    expect(new AppConfig({ DATA_DIR: dataDir() }).shutdownTimeoutSeconds).toBe(25);
    expect(new AppConfig({ DATA_DIR: dataDir(), SHUTDOWN_TIMEOUT_SECONDS: '3' }).shutdownTimeoutSeconds).toBe(3);
    for (const bad of ['0', '601', '2.5', 'soon']) {
      expect(() => new AppConfig({ DATA_DIR: dataDir(), SHUTDOWN_TIMEOUT_SECONDS: bad })).toThrow(
        new ConfigError(`SHUTDOWN_TIMEOUT_SECONDS must be a whole number from 1 to 600, got "${bad}"`),
      );
    }
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

describe('AppConfig edge settings', () => {
  it('trusts no proxy by default and reads TRUST_PROXY as Express does', () => {
    const d = dataDir();
    expect(new AppConfig({ DATA_DIR: d }).trustProxy).toBe(false);
    expect(new AppConfig({ DATA_DIR: d, TRUST_PROXY: 'loopback' }).trustProxy).toEqual(['loopback']);
    expect(new AppConfig({ DATA_DIR: d, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(new AppConfig({ DATA_DIR: d, TRUST_PROXY: 'FALSE' }).trustProxy).toBe(false);
    expect(new AppConfig({ DATA_DIR: d, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(new AppConfig({ DATA_DIR: d, TRUST_PROXY: 'loopback, 10.0.0.0/8,192.168.1.7, fd00::/8, 172.16.0.0/255.240.0.0' }).trustProxy).toEqual([
      'loopback', '10.0.0.0/8', '192.168.1.7', 'fd00::/8', '172.16.0.0/255.240.0.0',
    ]);
  });

  it('refuses a TRUST_PROXY Express would misread, naming the variable', () => {
    const d = dataDir();
    for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', 'loopback,proxy.example.com', '1000', '::1/129']) {
      expect(() => new AppConfig({ DATA_DIR: d, TRUST_PROXY: bad })).toThrow(/^TRUST_PROXY must be/);
    }
  });

  it('serves the API docs unless API_DOCS_ENABLED is false', () => {
    const d = dataDir();
    expect(new AppConfig({ DATA_DIR: d }).apiDocsEnabled).toBe(true);
    expect(new AppConfig({ DATA_DIR: d, API_DOCS_ENABLED: 'false' }).apiDocsEnabled).toBe(false);
    expect(() => new AppConfig({ DATA_DIR: d, API_DOCS_ENABLED: 'maybe' })).toThrow(/API_DOCS_ENABLED must be true or false/);
  });
});
