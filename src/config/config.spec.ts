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
    expect(() => new AppConfig({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toThrow(
      new ConfigError('JWT_SECRET is required when NODE_ENV=production'),
    );
  });

  it('signs media with MEDIA_SIGNING_KEY when strong and distinct, else with a key derived from JWT_SECRET under its own label', () => {
    const jwt = 'j'.repeat(40);
    const enc = 'e'.repeat(40);
    const base = { NODE_ENV: 'production', DATA_DIR: dataDir(), JWT_SECRET: jwt, TOKEN_ENCRYPTION_KEY: enc };
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
  it('trusts loopback proxies by default and reads TRUST_PROXY as Express does', () => {
    const d = dataDir();
    expect(new AppConfig({ DATA_DIR: d }).trustProxy).toEqual(['loopback']);
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
