import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { AppError, type Caller } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { RateLimiter } from '../../../platform/rate-limit/index.js';
import type { EndedSession, SessionsRepository, UserSession } from '../infrastructure/sessions.repository.js';
import type { SessionRef, SignInAudit } from './sign-in-audit.js';
import { UserSessionsService } from './user-sessions.service.js';

const tx = {} as Tx;

interface Row {
  id: string;
  userId: string;
  workspaceId: string;
  revoked: boolean;
}

/**
 * The sessions table, the audit log and the access stamps, with a transaction that either commits
 * or fails after the work (then the fake's writes are undone): enough to see what ends, what is
 * audited, and that stamps move only after commit.
 */
function setup(rows: Row[], opts: { failCommit?: boolean } = {}) {
  const events: string[] = [];
  const ds = {
    async transaction<T>(work: (t: Tx) => Promise<T>): Promise<T> {
      const before = rows.map((r) => ({ ...r }));
      const out = await work(tx);
      if (opts.failCommit) {
        rows.splice(0, rows.length, ...before);
        events.length = 0;
        throw new Error('commit failed');
      }
      events.push('commit');
      return out;
    },
  };
  const sessions = {
    async revokeOwn(_t: Tx, userId: string, id: string): Promise<EndedSession | null> {
      const r = rows.find((s) => s.id === id && s.userId === userId && !s.revoked);
      if (!r) return null;
      r.revoked = true;
      return { sessionId: r.id, workspaceId: r.workspaceId };
    },
    async revokeAllBut(_t: Tx, userId: string, kept: string): Promise<EndedSession[]> {
      const ended = rows.filter((s) => s.userId === userId && s.id !== kept && !s.revoked);
      ended.forEach((r) => (r.revoked = true));
      return ended.map((r) => ({ sessionId: r.id, workspaceId: r.workspaceId }));
    },
    async listLive(userId: string) {
      const items: UserSession[] = rows
        .filter((s) => s.userId === userId && !s.revoked)
        .map((s) => ({ id: s.id, workspaceId: s.workspaceId, userAgent: 'curl/8.0', ip: '203.0.113.9', createdAt: new Date(0), lastUsedAt: new Date(0) }));
      return { items, page: 1, pageSize: 20, total: items.length };
    },
  };
  const audit = {
    async signedOut(_t: Tx, s: SessionRef) {
      events.push(`logout ${s.sessionId}`);
    },
    async revoked(_t: Tx, s: SessionRef, by: string) {
      events.push(`revoked ${s.sessionId} by ${by} in ${s.workspaceId}`);
    },
  };
  const limiter = {
    async bumpAccessStamp(workspaceId: string) {
      events.push(`stamp ${workspaceId}`);
    },
  };
  const service = new UserSessionsService(ds as unknown as DataSource, sessions as unknown as SessionsRepository, audit as unknown as SignInAudit, limiter as unknown as RateLimiter);
  return { service, events, rows };
}

const caller = (sessionId: string | undefined, userId = 'user_a'): Caller =>
  ({ kind: 'session', userId, workspaceId: 'ws_1', role: 'user', workspaceRole: 'owner', plan: 'starter', scopes: [], sessionId });

const code = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof AppError ? e.code : String(e)));

describe('UserSessionsService', () => {
  const rows = (): Row[] => [
    { id: 'ses_1', userId: 'user_a', workspaceId: 'ws_1', revoked: false },
    { id: 'ses_2', userId: 'user_a', workspaceId: 'ws_1', revoked: false },
    { id: 'ses_3', userId: 'user_a', workspaceId: 'ws_2', revoked: false },
    { id: 'ses_b', userId: 'user_b', workspaceId: 'ws_b', revoked: false },
  ];

  it('lists with device names, network prefixes and the current flag', async () => {
    const { service } = setup(rows());
    const page = await service.list(caller('ses_2'), { page: 1, pageSize: 20 });
    expect(page.items.map((s) => [s.id, s.device, s.ipPrefix, s.current])).toEqual([
      ['ses_1', 'curl', '203.0.113.0/24', false],
      ['ses_2', 'curl', '203.0.113.0/24', true],
      ['ses_3', 'curl', '203.0.113.0/24', false],
    ]);
  });

  it('ends another session: revoked and audited in one transaction, then its workspace stamp moves', async () => {
    const { service, events, rows: table } = setup(rows());
    await service.end(caller('ses_1'), 'ses_3');
    expect(events).toEqual(['revoked ses_3 by ses_1 in ws_2', 'commit', 'stamp ws_2']);
    expect(table.filter((r) => r.revoked).map((r) => r.id)).toEqual(['ses_3']);
  });

  it('ends the current session as a logout', async () => {
    const { service, events } = setup(rows());
    await service.end(caller('ses_1'), 'ses_1');
    expect(events).toEqual(['logout ses_1', 'commit', 'stamp ws_1']);
  });

  it("answers not_found for another user's, an unknown and an ended session, and moves no stamp", async () => {
    const { service, events } = setup(rows());
    expect(await code(service.end(caller('ses_1'), 'ses_b'))).toBe('not_found');
    expect(await code(service.end(caller('ses_1'), 'ses_nope'))).toBe('not_found');
    await service.end(caller('ses_1'), 'ses_2');
    events.length = 0;
    expect(await code(service.end(caller('ses_1'), 'ses_2'))).toBe('not_found');
    expect(events.filter((e) => e.startsWith('stamp'))).toEqual([]);
  });

  it('ends every other session of the user, once per workspace stamp, and answers the count', async () => {
    const { service, events, rows: table } = setup(rows());
    expect(await service.endOthers(caller('ses_2'))).toBe(2);
    expect(events).toEqual(['revoked ses_1 by ses_2 in ws_1', 'revoked ses_3 by ses_2 in ws_2', 'commit', 'stamp ws_1', 'stamp ws_2']);
    expect(table.filter((r) => !r.revoked).map((r) => r.id)).toEqual(['ses_2', 'ses_b']);
    events.length = 0;
    expect(await service.endOthers(caller('ses_2'))).toBe(0);
    expect(events).toEqual(['commit']);
  });

  it('moves no stamp when the transaction fails', async () => {
    const { service, events } = setup(rows(), { failCommit: true });
    expect(await code(service.endOthers(caller('ses_2')))).toBe('Error: commit failed');
    expect(events).toEqual([]);
  });

  it('refuses a caller without a session', async () => {
    const { service } = setup(rows());
    expect(await code(service.endOthers(caller(undefined)))).toBe('session_required');
    expect(await code(service.end(caller(undefined), 'ses_1'))).toBe('session_required');
  });
});
