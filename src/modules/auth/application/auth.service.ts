import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { BillingFacade } from '../../billing/index.js';
import { OrganisationsFacade } from '../../organisations/index.js';
import { workspaceNameFor, type Membership, type User } from '../domain/accounts.js';
import { defaultDisplayName, normalizeEmail } from '../domain/password-policy.js';
import { decideRefresh, hashRefreshToken } from '../domain/refresh-token.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { EmailVerificationService } from './email-verification.service.js';
import { SessionsRepository, type SessionAccount, type StoredRefreshToken } from '../infrastructure/sessions.repository.js';
import { MfaChallenges, type MfaChallenge } from './mfa-challenges.js';
import { PasswordHasher } from './password-hasher.js';
import { PasswordRules } from './password-rules.js';
import { AccountDeletionService } from './data-rights/account-deletion.service.js';
import { SessionsService, type ClientInfo, type TokenPair } from './sessions.service.js';
import { SignInAudit, type SessionRef } from './sign-in-audit.js';

export interface Registration {
  email: string;
  password: string;
  displayName?: string;
  locale?: string;
  /** Joins the inviting workspace too; a bad token fails the whole registration. */
  invitationToken?: string;
}

export interface SignedIn extends TokenPair {
  user: User;
  /** This sign-in cancelled the account's scheduled deletion. */
  deletionCancelled?: boolean;
}

/** The caller's account in the workspace of its token, its role there, and every workspace it belongs to. */
export type Me = SessionAccount;

const invalidCredentials = () => new AppError('invalid_credentials', 'The email or password is not correct.');
const invalidRefreshToken = () => new AppError('invalid_refresh_token', 'The refresh token is invalid, expired or revoked.');

/** Sign-up, sign-in, token refresh and sign-out. */
@Injectable()
export class AuthService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly sessions: SessionsRepository,
    private readonly sessionTokens: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly passwordRules: PasswordRules,
    private readonly billing: BillingFacade,
    private readonly organisations: OrganisationsFacade,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly signIns: SignInAudit,
    private readonly emailVerification: EmailVerificationService,
    private readonly mfaChallenges: MfaChallenges,
    private readonly deletions: AccountDeletionService,
  ) {}

  /** Workspace, user, the first Starter allocation, the verification mail's event and first session commit together; a taken email (any case) is 409. */
  async register(input: Registration, client: ClientInfo): Promise<SignedIn> {
    const email = normalizeEmail(input.email);
    const displayName = input.displayName || defaultDisplayName(email);
    await this.passwordRules.assertNotGuessable(input.password, email);
    const passwordHash = await this.hasher.hash(input.password); // slow on purpose: before the transaction
    try {
      return await inTransaction(this.ds, async (tx) => {
        const workspaceId = newId('ws');
        await this.accounts.insertWorkspace(tx, { id: workspaceId, name: workspaceNameFor(displayName), plan: 'starter' });
        const user = await this.accounts.insertUser(tx, {
          id: newId('user'),
          workspaceId,
          email,
          passwordHash,
          displayName,
          role: 'user',
          locale: input.locale,
        });
        await this.billing.openFirstAllocation(tx, workspaceId);
        if (input.invitationToken) await this.organisations.acceptOnRegister(tx, user.id, email, input.invitationToken);
        await this.emailVerification.recordOnRegistration(tx, user, workspaceId);
        return { user, ...(await this.sessionTokens.start(tx, { userId: user.id, workspaceId }, client)) };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_lower_uq')) {
        throw new AppError('email_taken', 'An account with this email already exists.');
      }
      throw err;
    }
  }

  /**
   * Unknown email and wrong password answer alike, in body and in time; failures count per email.
   * With two-factor on, a right password starts no session: it answers a challenge for the code step.
   */
  async login(emailInput: string, password: string, client: ClientInfo): Promise<SignedIn | MfaChallenge> {
    const email = normalizeEmail(emailInput);
    const found = await this.accounts.findCredentialsByEmail(email);
    const ok = found ? await this.hasher.verify(found.passwordHash, password) : await this.hasher.verifyUnknownUser(password);
    if (!found || !ok || found.status !== 'active') {
      this.signIns.refused(found?.id ?? null);
      await this.limiter.recordSignInFailure(email);
      throw invalidCredentials();
    }
    const { passwordHash: _hash, ...user } = found;
    if (user.mfaEnabled) return this.mfaChallenges.issue(user.id);
    return this.startSignedInSession(user, client);
  }

  /**
   * The session a sign-in starts, with its bookkeeping (the audit entry, new-device checks) in the
   * same transaction; `spendProof` runs first in it (a second factor's single-use marks), so a
   * refused proof starts nothing.
   */
  async startSignedInSession(user: User, client: ClientInfo, spendProof?: (tx: Tx) => Promise<void>): Promise<SignedIn> {
    // A member who left (or was removed from) the workspace they signed up with lands in another of theirs.
    const workspaceId = await this.accounts.signInWorkspace(user.id, user.workspaceId);
    if (!workspaceId) throw new AppError('forbidden', 'This account belongs to no workspace any more.');
    const tokens = await inTransaction(this.ds, async (tx) => {
      await spendProof?.(tx);
      const started = await this.sessionTokens.start(tx, { userId: user.id, workspaceId }, client);
      await this.signIns.signedIn(tx, { sessionId: started.sessionId, userId: user.id, workspaceId }, client);
      return started;
    });
    return { user, ...tokens, ...((await this.deletions.cancelOnSignIn(user.id)) && { deletionCancelled: true }) };
  }

  /** Rotates a refresh token within its session; a spent token presented again ends the whole session. */
  async refresh(refreshToken: string, client: ClientInfo): Promise<SignedIn> {
    const stored = await this.sessions.findRefreshToken(hashRefreshToken(refreshToken));
    const decision = decideRefresh(stored, new Date());
    if (decision === 'invalid' || !stored) throw invalidRefreshToken();
    const tokens = decision === 'rotate' ? await this.rotate(stored) : null;
    if (!tokens) {
      await this.endSession(stored, 'refresh_token_reused', (tx) => this.signIns.reused(tx, stored, client));
      throw new AppError('refresh_token_reused', 'This refresh token was already used; the session has been ended.');
    }
    const account = await this.accounts.findUserWithWorkspace(stored.userId);
    if (!account) throw invalidRefreshToken();
    return { user: account.user, ...tokens };
  }

  /** A new pair, or null when a concurrent presentation of the same token rotated it first (a reuse). */
  private rotate(stored: StoredRefreshToken): Promise<TokenPair | null> {
    return inTransaction(this.ds, async (tx) =>
      (await this.sessions.markRotated(tx, stored.id)) ? this.sessionTokens.continue(tx, stored, stored.sessionId) : null,
    );
  }

  /** Ends the caller's session, and the session of `refreshToken` too when it is another of the caller's own. */
  async logout(caller: Caller, refreshToken?: string): Promise<void> {
    const ending: SessionRef[] = caller.sessionId ? [{ sessionId: caller.sessionId, userId: caller.userId, workspaceId: caller.workspaceId }] : [];
    if (refreshToken) {
      const stored = await this.sessions.findRefreshToken(hashRefreshToken(refreshToken));
      if (stored?.userId === caller.userId && stored.sessionId !== caller.sessionId) ending.push(stored);
    }
    for (const session of ending) {
      // A retried logout moves the stamp again but is not a second sign-out.
      await this.endSession(session, 'logout', async (tx, endedNow) => (endedNow ? this.signIns.signedOut(tx, session) : undefined));
    }
  }

  /**
   * Revokes the session and records why in the same transaction (`record` is told whether this
   * call ended it), then moves its workspace's access stamp so no instance reuses its old
   * check. The stamp moves even when the session had already ended: a retried logout whose first
   * attempt revoked the session but failed to reach Redis still gets the stamp moved.
   */
  private async endSession(session: SessionRef, reason: string, record: (tx: Tx, endedNow: boolean) => Promise<void>): Promise<void> {
    await inTransaction(this.ds, async (tx) => record(tx, await this.sessions.revokeSession(tx, session.sessionId, reason)));
    await this.limiter.bumpAccessStamp(session.workspaceId);
  }

  /**
   * The caller's user, workspace, role and workspaces as they are now (the balance moves with every
   * order), in one statement; the session check already found the session live for this request.
   */
  async me(caller: Caller): Promise<Me> {
    const me = caller.sessionId === undefined ? null : await this.sessions.findMe(caller.userId, caller.workspaceId);
    if (!me) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    return me;
  }

  /**
   * A token pair for another workspace the caller belongs to: a new session there (the current one
   * goes on, so two tabs may work in two workspaces). Not a member: the same 404 as no such workspace.
   */
  async switchWorkspace(caller: Caller, workspaceId: string, client: ClientInfo): Promise<SignedIn & { workspace: Membership }> {
    const membership = (await this.accounts.listMemberships(caller.userId)).find((m) => m.workspace.id === workspaceId);
    if (!membership) throw new AppError('not_found', 'No such workspace.');
    const account = await this.accounts.findUserWithWorkspace(caller.userId);
    if (!account) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    const tokens = await inTransaction(this.ds, (tx) => this.sessionTokens.start(tx, { userId: caller.userId, workspaceId }, client));
    return { user: account.user, ...tokens, workspace: membership };
  }
}
