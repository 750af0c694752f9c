// Jest globalSetup/globalTeardown of the e2e passes: the schema is migrated once per run, into a
// template that every test file's backing copies (a PostgreSQL `CREATE DATABASE … TEMPLATE`, or a
// copy of the embedded PGlite data directory), instead of migrating a new database per file.
// Plain JavaScript: it runs before Jest's transform is set up for the test files.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { URL } from 'node:url';
import pg from 'pg';

const ROOT = resolve(import.meta.dirname, '../..');
const PG_ADMIN_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs the migration CLI (dist/src/cli/migrate.js) with `env`; rejects with its output when it fails. */
function migrate(env) {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli/migrate.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        JWT_SECRET: 'e2e-template-jwt-secret-0123456789abcdef0123456789',
        TOKEN_ENCRYPTION_KEY: 'e2e-template-enc-key-0123456789abcdef0123456789',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('exit', (code) => (code === 0 ? res() : rej(new Error(`e2e template migration failed (${code}):\n${output}`))));
  });
}

export async function setup() {
  const name = `e2e_tpl_${process.pid}_${Date.now().toString(36)}`;
  if (process.env.E2E_MODE === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), `${name}-`));
    await migrate({ DATA_DIR: dir });
    process.env.E2E_EMBEDDED_TEMPLATE = dir;
    return;
  }
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  await migrate({ DATABASE_URL: url.toString() });
  process.env.E2E_PG_TEMPLATE = name;
}

export async function teardown() {
  if (process.env.E2E_EMBEDDED_TEMPLATE) rmSync(process.env.E2E_EMBEDDED_TEMPLATE, { recursive: true, force: true });
  if (process.env.E2E_PG_TEMPLATE) {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${process.env.E2E_PG_TEMPLATE} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}
