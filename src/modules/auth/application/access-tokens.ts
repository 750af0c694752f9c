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

/** Short-lived HS256 JWTs naming the user (`sub`) and the session (`sid`) the request must still belong to. */
@Injectable()
export class AccessTokens {
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
  verify(token: string): AccessClaims | null {
    let payload: { sub?: unknown; sid?: unknown };
    try {
      payload = this.jwt.verify(token);
    } catch {
      return null;
    }
    if (!isId('user', payload.sub) || !isId('ses', payload.sid)) return null;
    return { userId: payload.sub, sessionId: payload.sid };
  }
}
