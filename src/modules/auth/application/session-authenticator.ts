import { Injectable } from '@nestjs/common';
import { SCOPES, type Caller } from '../../../core/index.js';
import { SessionAuthenticator } from '../../../platform/auth/index.js';
import { SessionsRepository } from '../infrastructure/sessions.repository.js';
import { AccessTokens } from './access-tokens.js';

/**
 * Checks the JWT, then its session on every request (one query), so a logout, a reused refresh
 * token or a disabled user takes effect at once rather than when the token expires.
 */
@Injectable()
export class JwtSessionAuthenticator extends SessionAuthenticator {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly sessions: SessionsRepository,
  ) {
    super();
  }

  async authenticate(token: string): Promise<Caller | null> {
    const claims = this.tokens.verify(token);
    if (!claims) return null;
    const principal = await this.sessions.findLivePrincipal(claims.sessionId, claims.userId);
    if (!principal) return null;
    return { kind: 'session', ...principal, scopes: SCOPES, sessionId: claims.sessionId };
  }
}
