import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../../../config/index.js';
import { isId } from '../../../core/index.js';

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
