// @e2e services-only: seeds the previous release's rows with SQL on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { newId } from '../../src/core/ids.js';
import { displayPrefix, hashApiKey, issueApiKeySecret } from '../../src/modules/api-keys/domain/api-key-secret.js';
import { PasswordHasher } from '../../src/modules/auth/application/password-hasher.js';
import { generateRefreshToken, hashRefreshToken } from '../../src/modules/auth/domain/refresh-token.js';
import { api } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

type Row = Record<string, any>;

/** The last migration before teams: the schema the previous release ran on. */
const PREVIOUS_LAST = 'SelfHostedRouting1732800000000';

interface OldAccount {
  email: string;
  password: string;
  workspaceId: string;
  workspaceName: string;
  plan: 'starter' | 'pro' | 'agency';
  userId: string;
  characterIds: string[];
  refreshToken: string;
  apiKey: { secret: string; scopes: string[] } | null;
}

function oldAccount(tag: string, plan: OldAccount['plan'], characters: number, keyScopes: string[] | null): OldAccount {
  return {
    email: `${tag}.${process.pid}.${Date.now().toString(36)}@old.e2e.test`,
    password: `${tag}-old-password-42`,
    workspaceId: newId('ws'),
    workspaceName: `${tag}'s workspace`,
    plan,
    userId: newId('user'),
    characterIds: Array.from({ length: characters }, () => newId('char')),
    refreshToken: generateRefreshToken(),
    apiKey: keyScopes ? { secret: issueApiKeySecret().secret, scopes: keyScopes } : null,
  };
}

/** Migrates a fresh database up to the previous release's last migration, as that release would have. */
async function migrateToPrevious(url: string): Promise<void> {
  const upTo = MIGRATIONS.findIndex((m) => m.name === PREVIOUS_LAST);
  expect(upTo).toBeGreaterThan(0);
  const ds = new DataSource({ type: 'postgres', url, migrations: MIGRATIONS.slice(0, upTo + 1), migrationsTransactionMode: 'each' });
  await ds.initialize();
  try {
    await ds.runMigrations();
  } finally {
    await ds.destroy();
  }
}

/** The rows the previous release wrote for a sign-up, a sign-in, characters and an API key (no memberships then). */
async function insertOld(db: pg.Client, a: OldAccount, passwordHash: string): Promise<void> {
  await db.query(`INSERT INTO workspaces (id, name, plan, credits_balance) VALUES ($1, $2, $3, 50)`, [a.workspaceId, a.workspaceName, a.plan]);
  await db.query(`INSERT INTO users (id, workspace_id, email, password_hash, display_name) VALUES ($1, $2, $3, $4, $5)`, [a.userId, a.workspaceId, a.email, passwordHash, a.workspaceName]);
  const sessionId = newId('ses');
  await db.query(`INSERT INTO sessions (id, user_id, expires_at) VALUES ($1, $2, now() + interval '30 days')`, [sessionId, a.userId]);
  await db.query(`INSERT INTO refresh_tokens (id, session_id, token_hash, expires_at) VALUES ($1, $2, $3, now() + interval '30 days')`, [
    newId('rtk'), sessionId, hashRefreshToken(a.refreshToken),
  ]);
  for (const [i, id] of a.characterIds.entries()) {
    await db.query(`INSERT INTO characters (id, workspace_id, name, niche, is_default) VALUES ($1, $2, $3, 'travel', $4)`, [id, a.workspaceId, `Old ${i}`, i === 0]);
  }
  if (a.apiKey) {
    await db.query(`INSERT INTO api_keys (id, workspace_id, user_id, name, prefix, key_hash, scopes) VALUES ($1, $2, $3, 'Old key', $4, $5, $6)`, [
      newId('key'), a.workspaceId, a.userId, displayPrefix(a.apiKey.secret), hashApiKey(a.apiKey.secret), a.apiKey.scopes,
    ]);
  }
}

/**
 * Data made on the schema before teams, then the server started on it (it runs the teams migration
 * at boot): every old user still signs in, sees exactly its characters, refreshes its old token,
 * uses its old API key with the same scopes, and owns its workspace.
 */
describe('teams migration over data of the previous release', () => {
  let backing: Backing;
  let server: TestServer;
  const alice = oldAccount('alice', 'agency', 2, ['characters:read']);
  const bob = oldAccount('bob', 'pro', 1, null);
  const carol = oldAccount('carol', 'starter', 0, null);
  const accounts = [alice, bob, carol];

  beforeAll(async () => {
    backing = await createBacking({ services: true, fresh: true });
    await migrateToPrevious(backing.env.DATABASE_URL);
    const db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
    try {
      const hasher = new PasswordHasher();
      for (const a of accounts) await insertOld(db, a, await hasher.hash(a.password));
      expect((await db.query(`SELECT to_regclass('memberships') AS t`)).rows[0].t).toBeNull();
    } finally {
      await db.end();
    }
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('signs every old user in, shows exactly its characters and makes it owner of its workspace', async () => {
    for (const a of accounts) {
      const login = await api(server).post('/auth/login').send({ email: a.email, password: a.password });
      expect(login.status).toBe(200);
      const auth = { Authorization: `Bearer ${login.body.access_token}` };
      const characters = await api(server).get('/characters').set(auth);
      expect(characters.status).toBe(200);
      expect((characters.body.characters as Row[]).map((c) => c.id).sort()).toEqual([...a.characterIds].sort());
      const me = await api(server).get('/auth/me').set(auth);
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({ id: a.userId, email: a.email });
      expect(me.body.workspace).toMatchObject({ id: a.workspaceId, plan: a.plan });
      expect(me.body.workspace_role).toBe('owner');
      expect(me.body.workspaces).toEqual([{ id: a.workspaceId, name: a.workspaceName, plan: a.plan, role: 'owner' }]);
    }
  });

  it('refreshes the refresh token each old session held, into a session of the same workspace', async () => {
    for (const a of accounts) {
      const res = await api(server).post('/auth/refresh').send({ refresh_token: a.refreshToken });
      expect(res.status).toBe(200);
      const me = await api(server).get('/auth/me').set({ Authorization: `Bearer ${res.body.access_token}` });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ workspace: { id: a.workspaceId }, workspace_role: 'owner' });
    }
  });

  it('keeps the old API key working with the same scopes and nothing more', async () => {
    const bearer = { Authorization: `Bearer ${alice.apiKey!.secret}` };
    const listed = await api(server).get('/public/characters').set(bearer);
    expect(listed.status).toBe(200);
    expect((listed.body.characters as Row[]).map((c) => c.id).sort()).toEqual([...alice.characterIds].sort());
    const outOfScope = await api(server).get('/public/credits').set(bearer);
    expect(outOfScope.status).toBe(403);
    expect(outOfScope.body.code).toBe('insufficient_scope');
  });
});
