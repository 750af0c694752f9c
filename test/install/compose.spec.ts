import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { AppConfig, PUBLISH_PLATFORMS } from '../../src/config/config.js';
import { PRICE_ENV } from '../../src/modules/billing/billing.settings.js';

/**
 * The README's Docker commands (`sh docker/init-env.sh`, then `docker compose -f docker/compose.yml
 * up`, optionally `--scale api=2`) must work as written. No Docker daemon runs here, so this reads
 * the files those commands read, checks what would make them fail, and has Compose itself
 * (`docker compose config`, or `docker-compose config` where only Compose v1 is installed) read
 * the compose file with the env file init-env.sh writes.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DOCKER = join(ROOT, 'docker');
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

/** Every variable compose.yml interpolates (`${NAME}`, `${NAME:-default}`, `${NAME:?message}`). */
const interpolated = new Set([...read('compose.yml').matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));

/**
 * The Compose command here: the `docker compose` plugin when it answers, else Compose v1's
 * `docker-compose`; undefined when neither is installed.
 */
function composeCommand(): string[] | undefined {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    const probe = spawnSync(command[0], [...command.slice(1), 'version'], { stdio: 'pipe', timeout: 30_000 });
    if (probe.status === 0) return command;
  }
  return undefined;
}

/**
 * A copy of the repository's docker/ folder (never its docker/.env, which is the operator's) in a
 * scratch checkout, so the README's commands can run there as written, from the checkout's root.
 */
function scratchCheckout(name: string): string {
  const root = join(scratch, name);
  mkdirSync(root);
  cpSync(DOCKER, join(root, 'docker'), { recursive: true, filter: (src) => basename(src) !== '.env' });
  return root;
}

function runCompose(command: string[], cwd: string, args: string[]) {
  return spawnSync(command[0], [...command.slice(1), '-f', 'docker/compose.yml', ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
}

/**
 * The names the configuration reads, recorded as it reads them (a proxy over the environment), so
 * names it composes (`PRICE_${name}`, `${PLATFORM}_CLIENT_ID`) are caught as well as literal ones.
 */
function namesReadByConfig(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
  new AppConfig(recording);
  return read;
}

const key = () => randomBytes(36).toString('base64url');

/**
 * A production environment with every switch on that makes the configuration read more names:
 * Redis (then RUN_JOBS_IN_API), S3 storage (the S3_* settings), Stripe (its webhook secret and the
 * price ids) and every platform's OAuth client (its four addresses). A new setting read only behind
 * another switch needs that switch here; the source check below says so when one is missed.
 */
const EVERY_BRANCH: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://persona:pw@postgres:5432/persona',
  REDIS_URL: 'redis://redis:6379',
  JWT_SECRET: key(),
  TOKEN_ENCRYPTION_KEY: key(),
  STORAGE_DRIVER: 's3',
  S3_ENDPOINT: 'https://s3.eu-west-1.amazonaws.com',
  S3_BUCKET: 'media',
  S3_ACCESS_KEY_ID: 'AKIAIOSFODNN7',
  S3_SECRET_ACCESS_KEY: key(),
  STRIPE_SECRET_KEY: 'sk_test_1',
  STRIPE_WEBHOOK_SECRET: 'whsec_1',
  ...Object.fromEntries(Object.values(PRICE_ENV).map((name) => [name, 'price_1'])),
  ...Object.fromEntries(PUBLISH_PLATFORMS.flatMap((p) => [[`${p.toUpperCase()}_CLIENT_ID`, 'client'], [`${p.toUpperCase()}_CLIENT_SECRET`, key()]])),
};

/** The configuration's sources: src/config/config.ts and every `*.settings.ts` under src/. */
const CONFIG_SOURCES = [
  'src/config/config.ts',
  ...readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.settings.ts'))
    .map((f) => relative(ROOT, join(ROOT, 'src', f))),
];

/**
 * Settings the configuration reads that docker/.env.example need not name, each with its reason.
 * Everything else an operator may set is listed there: a blank `NAME=` line for what a deployment
 * commonly sets, a commented `# NAME=` line for tuning (the README's Configuration table has the
 * defaults). Names compose.yml sets for the app containers and names the image sets (`ENV` in
 * docker/Dockerfile) are wiring, not settings, and need no line either.
 */
const NEED_NOT_BE_LISTED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^OUTBOUND_ALLOW_HOSTS$/, 'tests only: it lets user-supplied URLs reach private addresses, and production refuses it'],
  [/^(REPLICATE_API_URL|ELEVENLABS_API_URL|DID_API_URL|STRIPE_API_BASE)$/, "a provider's own API address: the tests and the bench point it at their fakes"],
  [/^(INSTAGRAM|TIKTOK|TWITTER|YOUTUBE|PINTEREST)_(API|AUTHORIZE|TOKEN|UPLOAD)_URL$/, "a platform's own addresses: the tests point them at their fakes"],
];

/** What the image's `ENV` instructions set (docker/Dockerfile, continuation lines joined; unquoted values). */
function dockerfileEnv(): Map<string, string> {
  const instructions = read('Dockerfile').replace(/\\\n/g, ' ').split('\n');
  const pairs = instructions.filter((l) => /^ENV\s/.test(l)).flatMap((l) => [...l.matchAll(/([A-Z][A-Z0-9_]*)=("[^"]*"|\S*)/g)].map((m) => [m[1], m[2]] as const));
  return new Map(pairs);
}

/** Names docker/.env.example lists, as a setting (`NAME=`) or as a commented tuning line (`# NAME=`). */
function listedInExample(): Set<string> {
  return new Set([...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
}

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

  it('Compose accepts docker/compose.yml with the env file init-env.sh writes (docker compose config)', () => {
    const command = composeCommand();
    if (!command) {
      throw new Error(
        'Neither `docker compose` (the Compose plugin) nor `docker-compose` (Compose v1) is installed, so docker/compose.yml ' +
          'cannot be checked: install one (Debian/Ubuntu: apt-get install docker-compose; or https://docs.docker.com/compose/install/).',
      );
    }
    // The README's commands, as written, in a scratch copy of the checkout: init-env.sh writes
    // docker/.env there, where compose.yml's `env_file: .env` and its interpolation both read it.
    const checkout = scratchCheckout('checkout');
    execFileSync('sh', ['docker/init-env.sh'], { cwd: checkout, stdio: 'pipe' });
    const config = runCompose(command, checkout, ['config']);
    expect({ status: config.status, stderr: config.stderr }).toMatchObject({ status: 0 });
    expect(spawnSync(command[0], [...command.slice(1), '-f', 'docker/compose.yml', 'config', '-q'], { cwd: checkout }).status).toBe(0);

    // What Compose resolved: every docker/.env line reaches both app containers, under their wiring.
    const env = dotenv(readFileSync(join(checkout, 'docker/.env'), 'utf8'));
    const resolved = parse(config.stdout) as { services: Record<string, { environment: Record<string, string | null> }> };
    for (const name of ['api', 'worker']) {
      const environment = resolved.services[name].environment;
      expect(environment.DATABASE_URL).toBe(`postgres://persona:${env.get('POSTGRES_PASSWORD')}@postgres:5432/persona`);
      expect(environment.JWT_SECRET).toBe(env.get('JWT_SECRET'));
      expect([...env.keys()].filter((n) => !(n in environment))).toEqual([]);
      // And the configuration starts on it, in production (blank lines count as unset).
      const given = Object.fromEntries(Object.entries(environment).map(([n, v]) => [n, v ?? undefined]));
      expect(() => new AppConfig({ ...Object.fromEntries(dockerfileEnv()), ...given })).not.toThrow();
    }
  });

  it('Compose refuses to start without the generated secrets, and says to run init-env.sh', () => {
    const command = composeCommand();
    if (!command) throw new Error('Neither `docker compose` nor `docker-compose` is installed: install one (see the test above).');
    const checkout = scratchCheckout('no-secrets');
    cpSync(join(checkout, 'docker/.env.example'), join(checkout, 'docker/.env'));
    const config = runCompose(command, checkout, ['config', '-q']);
    expect(config.status).not.toBe(0);
    expect(config.stderr).toContain('sh docker/init-env.sh');
  });

  it('.env.example lists every setting the configuration reads, except the documented exceptions', () => {
    const read = namesReadByConfig({ ...EVERY_BRANCH });
    // Each name a configuration source reads literally was read above (its branch was taken).
    const literal = CONFIG_SOURCES.flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]));
    expect(literal.length).toBeGreaterThan(100);
    expect(literal.filter((n) => !read.has(n))).toEqual([]);

    const app = compose.services.api.environment ?? {};
    const worker = compose.services.worker.environment ?? {};
    const wiring = new Set([...Object.keys(app), ...Object.keys(worker), ...dockerfileEnv().keys()]);
    const listed = listedInExample();
    const excused = (n: string) => NEED_NOT_BE_LISTED.some(([pattern]) => pattern.test(n));
    const missing = [...read].filter((n) => !listed.has(n) && !wiring.has(n) && !excused(n)).sort();
    expect(missing).toEqual([]);
    // The exceptions stay true: each still names something the configuration reads.
    expect(NEED_NOT_BE_LISTED.filter(([pattern]) => ![...read].some((n) => pattern.test(n))).map(([p]) => p.source)).toEqual([]);
  });

  it('.env.example names nothing the configuration or compose.yml does not read (no misspelt settings)', () => {
    const read = namesReadByConfig({ ...EVERY_BRANCH });
    const unknown = [...listedInExample()].filter((n) => !read.has(n) && !interpolated.has(n) && !n.startsWith('COMPOSE_'));
    expect(unknown).toEqual([]);
  });
});
