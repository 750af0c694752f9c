import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { SCOPES, type Caller } from '../../../core/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { RateLimiter } from '../../../platform/rate-limit/index.js';
import { hashEmailToken, type EmailTokenPurpose } from '../domain/email-tokens.js';
import type { AccountsRepository } from '../infrastructure/accounts.repository.js';
import type { EmailTokensRepository, StoredEmailToken } from '../infrastructure/email-tokens.repository.js';
import { EmailChangeService } from './email-change.service.js';
import { EmailVerificationService } from './email-verification.service.js';
import type { PasswordHasher } from './password-hasher.js';

/** In-memory users, tokens and outbox: what the two services read and write, with the rules the SQL keeps. */
class World {
  users = new Map<string, { id: string; email: string; emailVerifiedAt: Date | null; passwordHash: string; workspaceId: string }>();
  tokens: Array<{ id: string; userId: string; purpose: EmailTokenPurpose; tokenHash: string; email: string; expiresAt: Date; usedAt: Date | null; createdAt: Date }> = [];
  events: Array<{ type: string; workspaceId: string | null; payload: Record<string, unknown>; secret?: string }> = [];
  bumped: string[] = [];
  signInFailures = 0;

  addUser(id: string, email: string, verified = false) {
    this.users.set(id, { id, email, emailVerifiedAt: verified ? new Date() : null, passwordHash: 'pw:correct-horse-battery', workspaceId: `ws_${id}` });
  }

  byEmail(email: string) {
    return [...this.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase()) ?? null;
  }

  accounts = {
    lockUser: async (_tx: unknown, id: string) => this.users.get(id) ?? null,
    markEmailVerified: async (_tx: unknown, id: string) => {
      const u = this.users.get(id)!;
      u.emailVerifiedAt ??= new Date();
    },
    changeEmail: async (_tx: unknown, id: string, email: string) => {
      const u = this.users.get(id)!;
      u.email = email;
      u.emailVerifiedAt = new Date();
    },
    findCredentialsByEmail: async (email: string) => this.byEmail(email),
    findCredentialsById: async (id: string) => this.users.get(id) ?? null,
    listMemberships: async (id: string) => [{ workspace: { id: this.users.get(id)!.workspaceId } }, { workspace: { id: 'ws_team' } }],
  };

  tokenRepo = {
    insert: async (_tx: unknown, t: { id: string; userId: string; purpose: EmailTokenPurpose; tokenHash: string; email: string; expiresAt: Date }) => {
      this.tokens.push({ ...t, usedAt: null, createdAt: new Date() });
    },
    findForUpdate: async (_tx: unknown, hash: string): Promise<StoredEmailToken | null> => {
      const t = this.tokens.find((x) => x.tokenHash === hash);
      if (!t) return null;
      const u = this.users.get(t.userId)!;
      return { id: t.id, userId: t.userId, purpose: t.purpose, email: t.email, expiresAt: t.expiresAt, usedAt: t.usedAt, userEmail: u.email, userWorkspaceId: u.workspaceId };
    },
    markUsed: async (_tx: unknown, id: string) => {
      const t = this.tokens.find((x) => x.id === id)!;
      t.usedAt ??= new Date();
    },
    voidUnused: async (_tx: unknown, userId: string, purpose?: EmailTokenPurpose) => {
      for (const t of this.tokens) if (t.userId === userId && t.usedAt === null && (!purpose || t.purpose === purpose)) t.usedAt = new Date();
    },
    issuedSince: async (_tx: unknown, userId: string, purpose: EmailTokenPurpose, since: Date) =>
      this.tokens.filter((t) => t.userId === userId && t.purpose === purpose && t.createdAt > since).map((t) => t.createdAt),
  };

  services() {
    const ds = { transaction: (work: (tx: unknown) => Promise<unknown>) => work({}) } as unknown as DataSource;
    const outbox = { record: async (_tx: unknown, e: World['events'][number]) => void this.events.push(e) } as unknown as Outbox;
    const limiter = {
      bumpAccessStamp: async (id: string) => void this.bumped.push(id),
      assertSignInAllowed: async () => undefined,
      recordSignInFailure: async () => void (this.signInFailures += 1),
    } as unknown as RateLimiter;
    const accounts = this.accounts as unknown as AccountsRepository;
    const tokens = this.tokenRepo as unknown as EmailTokensRepository;
    const verification = new EmailVerificationService(ds, accounts, tokens, outbox, limiter);
    const hasher = { verify: async (hash: string, pw: string) => hash === `pw:${pw}` } as unknown as PasswordHasher;
    return { verification, change: new EmailChangeService(ds, accounts, tokens, verification, hasher, limiter) };
  }

  /** The token the last event of `type` carries in its secret: what the mail's link holds. */
  secretOf(type: string): string {
    const e = [...this.events].reverse().find((x) => x.type === type);
    if (!e?.secret) throw new Error(`no ${type} event with a secret`);
    return e.secret;
  }
}

const caller = (userId: string): Caller => ({
  kind: 'session', userId, workspaceId: `ws_${userId}`, role: 'user', workspaceRole: 'owner', plan: 'starter', scopes: SCOPES, sessionId: 'sess_1',
});

describe('EmailVerificationService', () => {
  it('records the mail in the transaction with the token only in the sealed secret, and stores only its hash', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    await w.services().verification.recordOnRegistration({} as never, { id: 'u1', email: 'ada@example.test' }, 'ws_u1');
    expect(w.events).toEqual([{ type: 'account.email_verification_requested', workspaceId: 'ws_u1', payload: { userId: 'u1', email: 'ada@example.test' }, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) }]);
    const token = w.secretOf('account.email_verification_requested');
    expect(w.tokens[0]).toMatchObject({ purpose: 'verify', email: 'ada@example.test', tokenHash: hashEmailToken(token) });
    expect(JSON.stringify(w.tokens)).not.toContain(token);
    expect(w.tokens[0].expiresAt.getTime() - Date.now()).toBeGreaterThan(24 * 3600_000 - 5_000);
  });

  it('verifies once, bumps every workspace of the user, and refuses the token after', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    const { verification } = w.services();
    await verification.recordOnRegistration({} as never, { id: 'u1', email: 'ada@example.test' }, 'ws_u1');
    const token = w.secretOf('account.email_verification_requested');
    expect(await verification.confirm(token)).toEqual({ purpose: 'verify', email: 'ada@example.test' });
    expect(w.users.get('u1')!.emailVerifiedAt).not.toBeNull();
    expect(w.bumped.sort()).toEqual(['ws_team', 'ws_u1']);
    await expect(verification.confirm(token)).rejects.toMatchObject({ code: 'invalid_verification_token' });
    await expect(verification.confirm('guess')).rejects.toMatchObject({ code: 'invalid_verification_token' });
  });

  it('refuses an expired token with the same error as an unknown one', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    const { verification } = w.services();
    await verification.recordOnRegistration({} as never, { id: 'u1', email: 'ada@example.test' }, 'ws_u1');
    w.tokens[0].expiresAt = new Date(Date.now() - 1);
    const refusal = (token: string) => verification.confirm(token).then(() => null, (e: { code: string; message: string }) => ({ code: e.code, message: e.message }));
    const expired = await refusal(w.secretOf('account.email_verification_requested'));
    expect(expired).toMatchObject({ code: 'invalid_verification_token' });
    expect(expired).toEqual(await refusal('x'.repeat(43)));
    expect(w.users.get('u1')!.emailVerifiedAt).toBeNull();
  });

  it('resends up to the limit (the sign-up mail counted), answers 409 once verified', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    const { verification } = w.services();
    await verification.recordOnRegistration({} as never, { id: 'u1', email: 'ada@example.test' }, 'ws_u1');
    for (let i = 0; i < 4; i += 1) await verification.requestVerification(caller('u1'));
    await expect(verification.requestVerification(caller('u1'))).rejects.toMatchObject({ code: 'rate_limited', details: { limit: 5, retry_after: expect.any(Number) } });
    expect(w.events).toHaveLength(5);
    w.addUser('u2', 'bob@example.test', true);
    await expect(verification.requestVerification(caller('u2'))).rejects.toMatchObject({ code: 'email_already_verified' });
  });
});

describe('EmailChangeService with confirmation', () => {
  it('moves the account only when the new address confirms, tells the old one, and spends the other links', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    const { verification, change } = w.services();
    await verification.recordOnRegistration({} as never, { id: 'u1', email: 'ada@example.test' }, 'ws_u1');
    const verifyToken = w.secretOf('account.email_verification_requested');

    expect(await change.request(caller('u1'), 'correct-horse-battery', 'ada@new.test')).toEqual({ newEmail: 'ada@new.test', expiresAt: expect.any(Date) });
    expect(w.users.get('u1')!.email).toBe('ada@example.test');
    expect(w.events.at(-1)).toEqual({ type: 'account.email_change_requested', workspaceId: 'ws_u1', payload: { userId: 'u1', newEmail: 'ada@new.test' }, secret: expect.any(String) });

    expect(await verification.confirm(w.secretOf('account.email_change_requested'))).toEqual({ purpose: 'change', email: 'ada@new.test' });
    expect(w.users.get('u1')).toMatchObject({ email: 'ada@new.test', emailVerifiedAt: expect.any(Date) });
    expect(w.events.at(-1)).toEqual({ type: 'account.email_changed', workspaceId: 'ws_u1', payload: { userId: 'u1', oldEmail: 'ada@example.test', newEmail: 'ada@new.test' } });
    await expect(verification.confirm(verifyToken)).rejects.toMatchObject({ code: 'invalid_verification_token' });
  });

  it('refuses a wrong password (counted as a failed sign-in), a taken address, and the same address', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    w.addUser('u2', 'bob@example.test');
    const { change } = w.services();
    await expect(change.request(caller('u1'), 'wrong', 'x@example.test')).rejects.toMatchObject({ code: 'current_password_incorrect' });
    expect(w.signInFailures).toBe(1);
    await expect(change.request(caller('u1'), 'correct-horse-battery', 'BOB@example.test')).rejects.toMatchObject({ code: 'email_taken' });
    await expect(change.request(caller('u1'), 'correct-horse-battery', 'Ada@Example.test')).rejects.toMatchObject({ code: 'validation_failed' });
    expect(w.events).toEqual([]);
  });

  it('lets only the newest request complete, and re-checks the address is free at confirmation', async () => {
    const w = new World();
    w.addUser('u1', 'ada@example.test');
    const { verification, change } = w.services();
    await change.request(caller('u1'), 'correct-horse-battery', 'one@example.test');
    const first = w.secretOf('account.email_change_requested');
    await change.request(caller('u1'), 'correct-horse-battery', 'two@example.test');
    const second = w.secretOf('account.email_change_requested');
    await expect(verification.confirm(first)).rejects.toMatchObject({ code: 'invalid_verification_token' });

    w.addUser('u3', 'TWO@example.test');
    await expect(verification.confirm(second)).rejects.toMatchObject({ code: 'email_taken' });
    expect(w.users.get('u1')!.email).toBe('ada@example.test');
  });
});
