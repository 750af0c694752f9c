import { createSecretKey } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService, type JwtModuleOptions } from '@nestjs/jwt';
import { AppConfig } from '../../../config/index.js';
import { isId } from '../../../core/index.js';

/**
 * HS256 both ways; the algorithm is pinned on verify, so `none` or an asymmetric algorithm is refused.
 * The secret is handed over as a KeyObject: given a string, jsonwebtoken first tries to parse it as
 * a public key on every verify, and that failed parse was the largest cost of an authenticated request.
 */
export function jwtOptions(config: AppConfig): JwtModuleOptions {
  const claims = { issuer: config.jwtIssuer, audience: config.jwtAudience };
  return {
    secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')),
    signOptions: { algorithm: 'HS256', expiresIn: config.accessTokenTtlSeconds, ...claims },
    verifyOptions: { algorithms: ['HS256'], ...claims },
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

/** Verified tokens remembered at most; the oldest is forgotten first. */
const VERIFIED_CACHE_SIZE = 10_000;

/**
 * Short-lived HS256 JWTs naming the user (`sub`), the session (`sid`) the request must still belong
 * to, and the user's workspace (`wid`), so its rate-limit counter and access stamp can be read
 * before the session is.
 */
@Injectable()
export class AccessTokens {
  /**
   * Tokens whose signature and claims were already checked, with their expiry. A client sends the
   * same token on every request until it expires, and the HMAC check was the largest part of the
   * session check left in JavaScript. Only the outcome of checking this exact string is kept;
   * expiry is checked on every use, and revocation is the session check's job, never this cache's.
   */
  private readonly verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>();

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

  /** Null for anything but an unexpired token of ours: signature, algorithm, issuer and audience checked. */
  verify(token: string, nowMs: number = Date.now()): AccessClaims | null {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAtMs > nowMs) return known.claims;
      this.verified.delete(token);
      return null;
    }
    let payload: { sub?: unknown; sid?: unknown; wid?: unknown; exp?: unknown };
    try {
      payload = this.jwt.verify(token);
    } catch {
      return null;
    }
    if (!isId('user', payload.sub) || !isId('ses', payload.sid) || typeof payload.exp !== 'number') return null;
    if (payload.wid !== undefined && !isId('ws', payload.wid)) return null;
    const claims: AccessClaims = { userId: payload.sub, sessionId: payload.sid };
    if (payload.wid !== undefined) claims.workspaceId = payload.wid;
    this.remember(token, { claims, expiresAtMs: payload.exp * 1000 });
    return claims;
  }

  private remember(token: string, entry: { claims: AccessClaims; expiresAtMs: number }): void {
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.set(token, entry);
  }
}
