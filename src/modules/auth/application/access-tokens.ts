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

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

/** Verified tokens remembered at most; the oldest is forgotten first. */
const VERIFIED_CACHE_SIZE = 10_000;

/** Short-lived HS256 JWTs naming the user (`sub`) and the session (`sid`) the request must still belong to. */
@Injectable()
export class AccessTokens {
  /**
   * Tokens whose signature and claims were already checked, with their expiry. A client sends the
   * same token on every request until it expires, and the HMAC check was the largest part of the
   * session check left in JavaScript. Only the outcome of checking this exact string is kept;
   * expiry is checked on every use, and revocation is the session check's job, never this cache's.
   */
  private readonly verified = new Map<string, AccessClaims & { expiresAtMs: number }>();

  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  get ttlSeconds(): number {
    return this.config.accessTokenTtlSeconds;
  }

  issue(userId: string, sessionId: string): string {
    return this.jwt.sign({ sid: sessionId }, { subject: userId });
  }

  /** Null for anything but an unexpired token of ours: signature, algorithm, issuer and audience checked. */
  verify(token: string, nowMs: number = Date.now()): AccessClaims | null {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAtMs > nowMs) return { userId: known.userId, sessionId: known.sessionId };
      this.verified.delete(token);
      return null;
    }
    let payload: { sub?: unknown; sid?: unknown; exp?: unknown };
    try {
      payload = this.jwt.verify(token);
    } catch {
      return null;
    }
    if (!isId('user', payload.sub) || !isId('ses', payload.sid) || typeof payload.exp !== 'number') return null;
    const claims = { userId: payload.sub, sessionId: payload.sid };
    this.remember(token, { ...claims, expiresAtMs: payload.exp * 1000 });
    return claims;
  }

  private remember(token: string, entry: AccessClaims & { expiresAtMs: number }): void {
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.set(token, entry);
  }
}
