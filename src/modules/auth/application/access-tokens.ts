import { createSecretKey, type KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService, type JwtModuleOptions } from '@nestjs/jwt';
import type { Algorithm } from 'jsonwebtoken';
import { AppConfig } from '../../../config/index.js';
import { isId } from '../../../core/index.js';

/** HS256 both ways; pinned on verify, so `none`, another HMAC or an asymmetric algorithm is refused. */
const ALGORITHM: Algorithm = 'HS256';

/**
 * The secret as a KeyObject: given a string or a Buffer, jsonwebtoken first tries to parse it as a
 * public key on every verify, and that failed parse costs half a millisecond, more than the rest of
 * an authenticated request.
 */
export function accessTokenKey(config: AppConfig): KeyObject {
  return createSecretKey(Buffer.from(config.jwtSecret, 'utf8'));
}

/** How tokens are signed (@nestjs/jwt); they are verified by the session strategy (passport-jwt). */
export function jwtOptions(config: AppConfig): JwtModuleOptions {
  return {
    secret: accessTokenKey(config),
    signOptions: { algorithm: ALGORITHM, expiresIn: config.accessTokenTtlSeconds, issuer: config.jwtIssuer, audience: config.jwtAudience },
  };
}

/** What passport-jwt checks before the session check sees a token: signature, algorithm, issuer, audience, expiry. */
export function accessTokenVerification(config: AppConfig) {
  return {
    // passport-jwt hands the key to jsonwebtoken untouched, which takes a KeyObject; the typings predate that.
    secretOrKey: accessTokenKey(config) as unknown as Buffer,
    algorithms: [ALGORITHM],
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
  };
}

/** Whom a token is issued to: the user and the workspace it acts in. */
export interface TokenSubject {
  userId: string;
  workspaceId: string;
}

export interface AccessClaims {
  userId: string;
  sessionId: string;
  /** Absent only in tokens issued before the claim existed; they take the uncached session check. */
  workspaceId?: string;
}

/**
 * The claims of a verified token, or null when they are not ours in shape: a user id in `sub`, a
 * session id in `sid`, a workspace id in `wid` when present, and an expiry.
 */
export function claimsOf(payload: unknown): AccessClaims | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { sub, sid, wid, exp } = payload as Record<string, unknown>;
  if (!isId('user', sub) || !isId('ses', sid) || typeof exp !== 'number') return null;
  if (wid !== undefined && !isId('ws', wid)) return null;
  return wid === undefined ? { userId: sub, sessionId: sid } : { userId: sub, sessionId: sid, workspaceId: wid };
}

/**
 * Short-lived HS256 JWTs naming the user (`sub`), the session (`sid`) the request must still belong
 * to, and the user's workspace (`wid`), so its rate-limit counter and access stamp can be read
 * before the session is.
 */
@Injectable()
export class AccessTokens {
  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  get ttlSeconds(): number {
    return this.config.accessTokenTtlSeconds;
  }

  issue(subject: TokenSubject, sessionId: string): string {
    return this.jwt.sign({ sid: sessionId, wid: subject.workspaceId }, { subject: subject.userId });
  }
}
