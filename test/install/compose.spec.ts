import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

/**
 * The README's Docker commands (`sh docker/init-env.sh`, then `docker compose -f docker/compose.yml
 * up`, optionally `--scale api=2`) must work as written. No Docker daemon runs here, so this reads
 * the files those commands read and checks what would make them fail.
 */
const DOCKER = resolve(import.meta.dirname, '../../docker');
const read = (name: string) => readFileSync(join(DOCKER, name), 'utf8');

interface Service {
  ports?: string[];
  expose?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown>;
}
const compose = parse(read('compose.yml'), { merge: true }) as { services: Record<string, Service> };

const scratch = mkdtempSync(join(tmpdir(), 'compose-env-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function dotenv(text: string): Map<string, string> {
  const lines = text.split('\n').filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l));
  return new Map(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

function generatedEnv(name: string): Map<string, string> {
  const target = join(scratch, name);
  execFileSync('sh', [join(DOCKER, 'init-env.sh'), target]);
  return dotenv(readFileSync(target, 'utf8'));
}

/** Variables compose refuses to run without: `${NAME:?message}`. */
const required = [...new Set([...read('compose.yml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]))];

describe('docker compose deployment', () => {
  it('requires exactly the secrets init-env.sh generates, strong, distinct and URL-safe', () => {
    expect(required.sort()).toEqual(['JWT_SECRET', 'POSTGRES_PASSWORD', 'TOKEN_ENCRYPTION_KEY']);
    const env = generatedEnv('fresh.env');
    const values = required.map((name) => env.get(name) ?? '');
    for (const value of values) expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(values).size).toBe(values.length);
  });

  it('init-env.sh never overwrites a docker/.env that exists', () => {
    const target = join(scratch, 'kept.env');
    writeFileSync(target, 'JWT_SECRET=mine\n');
    execFileSync('sh', [join(DOCKER, 'init-env.sh'), target]);
    expect(readFileSync(target, 'utf8')).toBe('JWT_SECRET=mine\n');
  });

  it('publishes one host port, on the proxy, so `--scale api=2` cannot clash', () => {
    const publishing = Object.entries(compose.services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(publishing.map(([name]) => name)).toEqual(['proxy']);
    expect(compose.services.proxy.ports).toEqual(['${API_PORT:-3000}:8080']);
    expect(compose.services.api.expose).toEqual(['3000']);
  });

  it('the proxy listens where compose publishes and balances over the api service by name', () => {
    const nginx = read('nginx.conf');
    expect(nginx).toMatch(/listen 8080;/);
    expect(nginx).toMatch(/set \$api http:\/\/api:3000;/);
    // Docker's embedded DNS, re-read so replicas started later receive traffic.
    expect(nginx).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
  });

  it('passes every docker/.env setting to the API and the worker, with their own wiring on top', () => {
    for (const name of ['api', 'worker']) {
      const service = compose.services[name];
      expect(service.env_file).toBe('.env');
      expect(service.environment?.NODE_ENV).toBe('production');
      expect(service.environment?.REDIS_URL).toBe('redis://redis:6379');
      expect(service.environment?.TRUST_PROXY).toBe('uniquelocal');
    }
    expect(compose.services.worker.environment?.MIGRATIONS_RUN).toBe('false');
  });

  it('.env.example names the provider, platform and storage settings a deployment sets', () => {
    const example = dotenv(read('.env.example'));
    const platforms = ['INSTAGRAM', 'TIKTOK', 'TWITTER', 'YOUTUBE', 'PINTEREST'].flatMap((p) => [`${p}_CLIENT_ID`, `${p}_CLIENT_SECRET`]);
    const providers = ['MEDIA_PROVIDER', 'REPLICATE_API_TOKEN', 'TEXT_PROVIDER', 'OPENAI_API_KEY', 'VOICE_PROVIDER', 'ELEVENLABS_API_KEY', 'TALKING_HEAD_PROVIDER', 'DID_API_KEY'];
    const storage = ['STORAGE_DRIVER', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
    const missing = [...platforms, ...providers, ...storage, 'PUBLIC_URL', 'APP_URL', 'API_PORT'].filter((n) => !example.has(n));
    expect(missing).toEqual([]);
  });
});
