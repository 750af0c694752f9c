import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../../config/index.js';
import { newId, type Plan } from '../../../core/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { MemoryCounterStore } from '../../../platform/rate-limit/counter-store.js';
import type { LiveSession, SessionsRepository } from '../infrastructure/sessions.repository.js';
import type { AccessClaims } from './access-tokens.js';
import { CREDENTIAL_RECHECK_MS } from '../../../platform/auth/index.js';
import { SessionCheck } from './session-check.js';

const config = new AppConfig({ JWT_SECRET: 's'.repeat(40), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32) });

/** The sessions table as the authenticator sees it: one live session, and a count of reads. */
class FakeSessions {
  reads = 0;
  live = true;
  plan: Plan = 'starter';
  requiresMfa = false;
  mfaEnabled = false;
  expiresAt = new Date(Date.now() + 86_400_000);

  constructor(
    readonly userId: string,
    readonly workspaceId: string,
  ) {}

  async findLive(_sessionId: string, userId: string): Promise<LiveSession | null> {
    this.reads += 1;
    if (!this.live || userId !== this.userId) return null;
    const createdAt = new Date(0);
    return {
      expiresAt: this.expiresAt,
      memberRole: 'owner',
      workspaceRequiresMfa: this.requiresMfa,
      account: {
        user: { id: this.userId, workspaceId: this.workspaceId, email: 'a@b.test', displayName: 'A', status: 'active', role: 'user', locale: 'en', onboardingStep: 'done', mfaEnabled: this.mfaEnabled, signInAlerts: false, createdAt, emailVerifiedAt: createdAt },
        workspace: { id: this.workspaceId, name: 'W', plan: this.plan, creditsBalance: 0, createdAt },
      },
    };
  }
}

function setup() {
  const userId = newId('user');
  const workspaceId = newId('ws');
  const sessionId = newId('ses');
  const sessions = new FakeSessions(userId, workspaceId);
  const limiter = new RateLimiter(config, new MemoryCounterStore());
  const auth = new SessionCheck(sessions as unknown as SessionsRepository, limiter);
  // What passport-jwt hands on for a verified token (see session-strategies.spec.ts for the verification).
  const token: AccessClaims = { userId, workspaceId, sessionId };
  return { auth, sessions, limiter, token, userId, workspaceId, sessionId };
}

describe('SessionCheck', () => {
  it('reads the session once, then reuses it while the access stamp stays put, counting every request', async () => {
    const { auth, sessions, token, workspaceId, sessionId } = setup();
    const now = Date.now();
    const first = await auth.authenticate(token, now);
    const second = await auth.authenticate(token, now + 1_000);
    expect(first).toMatchObject({ hits: 1, caller: { kind: 'session', workspaceId, sessionId, plan: 'starter' } });
    expect(second).toMatchObject({ hits: 2, caller: first!.caller });
    expect(sessions.reads).toBe(1);
  });

  it('reads the session again once the stamp moves: a revoked session is refused on the next request', async () => {
    const { auth, sessions, limiter, token, workspaceId } = setup();
    await auth.authenticate(token);
    sessions.live = false;
    await limiter.bumpAccessStamp(workspaceId);
    expect(await auth.authenticate(token)).toBeNull();
    expect(sessions.reads).toBe(2);
  });

  it("marks the caller whose workspace requires two-factor they lack, and clears it once they enable it (after the stamp moves)", async () => {
    const { auth, sessions, limiter, token, workspaceId } = setup();
    expect((await auth.authenticate(token))!.caller.mfaRequirementUnmet).toBeUndefined();
    sessions.requiresMfa = true;
    await limiter.bumpAccessStamp(workspaceId);
    expect((await auth.authenticate(token))!.caller.mfaRequirementUnmet).toBe(true);
    sessions.mfaEnabled = true;
    expect((await auth.authenticate(token))!.caller.mfaRequirementUnmet).toBe(true);
    await limiter.bumpAccessStamp(workspaceId);
    expect((await auth.authenticate(token))!.caller.mfaRequirementUnmet).toBeUndefined();
  });

  it('sees a plan change on the request after the stamp moves, and not before', async () => {
    const { auth, sessions, limiter, token, workspaceId } = setup();
    await auth.authenticate(token);
    sessions.plan = 'agency';
    expect((await auth.authenticate(token))!.caller.plan).toBe('starter');
    await limiter.bumpAccessStamp(workspaceId);
    expect((await auth.authenticate(token))!.caller.plan).toBe('agency');
    expect((await auth.authenticate(token))!.caller.plan).toBe('agency');
    expect(sessions.reads).toBe(2);
  });

  it(`reads the session again after ${CREDENTIAL_RECHECK_MS / 1000} s even when the stamp stays put`, async () => {
    const { auth, sessions, token } = setup();
    const now = Date.now();
    await auth.authenticate(token, now);
    await auth.authenticate(token, now + CREDENTIAL_RECHECK_MS - 1);
    expect(sessions.reads).toBe(1);
    sessions.live = false;
    expect(await auth.authenticate(token, now + CREDENTIAL_RECHECK_MS)).toBeNull();
    expect(sessions.reads).toBe(2);
  });

  it('reads the session again once the session itself has expired', async () => {
    const { auth, sessions, token } = setup();
    const now = Date.now();
    sessions.expiresAt = new Date(now + 5_000);
    await auth.authenticate(token, now);
    sessions.live = false;
    expect(await auth.authenticate(token, now + 5_000)).toBeNull();
    expect(sessions.reads).toBe(2);
  });

  it('hands each request its own caller: what one request does to its caller never reaches the next', async () => {
    const { auth, token } = setup();
    const first = await auth.authenticate(token);
    first!.caller.plan = 'agency';
    const second = await auth.authenticate(token);
    expect(second!.caller).not.toBe(first!.caller);
    expect(second!.caller.plan).toBe('starter');
  });

  it('refuses a token whose workspace claim is not the workspace of its session, counting the request', async () => {
    const { auth, limiter, userId, sessionId } = setup();
    const otherWorkspace = newId('ws');
    expect(await auth.authenticate({ userId, sessionId, workspaceId: otherWorkspace })).toBeNull();
    expect((await limiter.hitWorkspace(otherWorkspace)).count).toBe(2);
  });

  it('checks a token without a workspace claim against the database on every request', async () => {
    const { auth, sessions, userId, sessionId } = setup();
    const legacy: AccessClaims = { userId, sessionId };
    expect(await auth.authenticate(legacy)).toMatchObject({ hits: 1 });
    expect(await auth.authenticate(legacy)).toMatchObject({ hits: 2 });
    expect(sessions.reads).toBe(2);
  });

  it('rechecks a held-open token against the database each time, counting no request', async () => {
    const { auth, sessions, limiter, token, workspaceId, sessionId } = setup();
    await auth.authenticate(token);
    expect(await auth.recheck(token)).toMatchObject({ kind: 'session', workspaceId, sessionId, plan: 'starter' });
    sessions.plan = 'agency';
    expect((await auth.recheck(token))!.plan).toBe('agency');
    expect(sessions.reads).toBe(3);
    expect((await limiter.hitWorkspace(workspaceId)).count).toBe(2);
    sessions.live = false;
    expect(await auth.recheck(token)).toBeNull();
  });
});
