import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { AppConfig } from '../../../config/index.js';
import { BOARD_STRATEGY, BOARD_TOKEN_AUDIENCE, boardTokenKey, SESSION_RECHECK_STRATEGY, SESSION_STRATEGY, sessionTokenOf, type Authenticated } from '../../../platform/auth/index.js';
import { accessTokenVerification, claimsOf } from './access-tokens.js';
import { SessionCheck } from './session-check.js';

/** Both session strategies verify the bearer token alike; they differ in what the session check does. */
function sessionTokenVerification(config: AppConfig) {
  return { ...accessTokenVerification(config), jwtFromRequest: sessionTokenOf };
}

/**
 * Session access tokens for the global guard and the socket gateway: passport-jwt verifies the
 * bearer token (HS256 only, our issuer and audience, not expired), then the session check decides
 * whether its session still stands. An API key in the header is not this strategy's to verify.
 */
@Injectable()
export class SessionJwtStrategy extends PassportStrategy(JwtStrategy, SESSION_STRATEGY) {
  constructor(
    config: AppConfig,
    private readonly sessions: SessionCheck,
  ) {
    super(sessionTokenVerification(config));
  }

  /** Counts the request, as the session check must to trust what it remembers; null when the session has ended. */
  async validate(payload: unknown): Promise<Authenticated | null> {
    const claims = claimsOf(payload);
    return claims && this.sessions.authenticate(claims);
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
