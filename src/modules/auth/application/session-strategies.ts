import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { AppConfig } from '../../../config/index.js';
import {
  BOARD_STRATEGY, BOARD_TOKEN_AUDIENCE, boardTokenKey, SESSION_RECHECK_STRATEGY, SESSION_STRATEGY, sessionTokenOf, type Authenticated, type CredentialRequest,
} from '../../../platform/auth/index.js';
import { accessTokenVerification, claimsOf } from './access-tokens.js';
import { SessionCheck } from './session-check.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Both session strategies verify the bearer token alike; they differ in what the session check does. */
function sessionTokenVerification(config: AppConfig) {
  return { ...accessTokenVerification(config), jwtFromRequest: sessionTokenOf };
}

/**
 * Session access tokens for the global guard and the socket gateway: passport-jwt verifies the
 * bearer token (HS256 only, our issuer and audience, not expired), then the session check decides
 * whether its session still stands. An API key in the header is not this strategy's to verify.
 *
 * A token this process verified before is not verified again (`VerifiedTokens`): only its expiry is
 * checked, and the session check runs as for any other.
 */
@Injectable()
export class SessionJwtStrategy extends PassportStrategy(JwtStrategy, SESSION_STRATEGY) {
  private readonly verified = new VerifiedTokens();

  constructor(
    config: AppConfig,
    private readonly sessions: SessionCheck,
  ) {
    super({ ...sessionTokenVerification(config), passReqToCallback: true });
  }

  /** Passport calls this on a per-request copy of the strategy that carries `success`, `fail` and `error`. */
  override authenticate(req: CredentialRequest, options?: object): void {
    const token = sessionTokenOf(req);
    // Not a session token (an API key, most often): the next strategy's to check. passport-jwt would
    // say so with a new Error, whose stack trace costs more than the rest of this step.
    if (token === null) return this.fail(401);
    const claims = this.verified.claimsOf(token);
    // Passport hands over what the access guard gave it, the header only (see `CredentialRequest`).
    if (claims === undefined) return super.authenticate(req as unknown as Request, options);
    this.sessions.authenticate(claims).then(
      (found) => (found ? this.success(found) : this.fail(401)),
      (err: unknown) => this.error(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** Counts the request, as the session check must to trust what it remembers; null when the session has ended. */
  async validate(req: CredentialRequest, payload: unknown): Promise<Authenticated | null> {
    const claims = claimsOf(payload);
    if (!claims) return null;
    const token = sessionTokenOf(req);
    if (token !== null) this.verified.remember(token, claims, (payload as { exp: number }).exp);
    return this.sessions.authenticate(claims);
  }
}

/** The same verification for a socket held open: the session read afresh, no request counted. */
@Injectable()
export class SessionRecheckStrategy extends PassportStrategy(JwtStrategy, SESSION_RECHECK_STRATEGY) {
  constructor(
    config: AppConfig,
    private readonly sessions: SessionCheck,
  ) {
    super(sessionTokenVerification(config));
  }

  async validate(payload: unknown): Promise<Authenticated | null> {
    const claims = claimsOf(payload);
    const caller = claims && (await this.sessions.recheck(claims));
    return caller && { caller };
  }
}

/**
 * Board-only tokens from the queue board's cookie: their own key and audience (so neither kind of
 * token passes for the other), then the session read afresh as for a socket.
 */
@Injectable()
export class BoardTokenStrategy extends PassportStrategy(JwtStrategy, BOARD_STRATEGY) {
  constructor(
    config: AppConfig,
    private readonly sessions: SessionCheck,
  ) {
    super({
      ...accessTokenVerification(config),
      // passport-jwt hands the key to jsonwebtoken untouched, which takes a KeyObject; the typings predate that.
      secretOrKey: boardTokenKey(config.jwtSecret) as unknown as Buffer,
      audience: BOARD_TOKEN_AUDIENCE,
      jwtFromRequest: sessionTokenOf,
    });
  }

  async validate(payload: unknown): Promise<Authenticated | null> {
    const claims = claimsOf(payload);
    const caller = claims && (await this.sessions.recheck(claims));
    return caller && { caller };
  }
}
