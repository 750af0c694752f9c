import { Injectable } from '@nestjs/common';
import { SCOPES, type Caller } from '../../../core/index.js';
import { SessionAuthenticator } from '../../../platform/auth/index.js';
import type { Account } from '../domain/accounts.js';
import { SessionsRepository } from '../infrastructure/sessions.repository.js';
import { AccessTokens } from './access-tokens.js';

/**
 * Checks the JWT, then its session on every request (one query), so a logout, a reused refresh
 * token or a disabled user takes effect at once rather than when the token expires.
 */
@Injectable()
export class JwtSessionAuthenticator extends SessionAuthenticator {
  /** What the session check read, per caller object: it lives exactly as long as the request's caller. */
  private readonly accounts = new WeakMap<Caller, Account>();

  constructor(
    private readonly tokens: AccessTokens,
    private readonly sessions: SessionsRepository,
  ) {
    super();
  }

  async authenticate(token: string): Promise<Caller | null> {
    const claims = this.tokens.verify(token);
    if (!claims) return null;
    const account = await this.sessions.findLiveAccount(claims.sessionId, claims.userId);
    if (!account) return null;
    const caller: Caller = {
      kind: 'session',
      userId: account.user.id,
      workspaceId: account.workspace.id,
      role: account.user.role,
      plan: account.workspace.plan,
      scopes: SCOPES,
      sessionId: claims.sessionId,
    };
    this.accounts.set(caller, account);
    return caller;
  }

  /** The user and workspace as this request's session check read them, so GET /auth/me needs no second query. */
  accountOf(caller: Caller): Account | undefined {
    return this.accounts.get(caller);
  }
}
