import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { generateRefreshToken, hashRefreshToken } from '../domain/refresh-token.js';
import { SessionsRepository } from '../infrastructure/sessions.repository.js';
import { AccessTokens, type TokenSubject } from './access-tokens.js';

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export interface TokenPair {
  /** The session the pair belongs to (not sent to the client: the audit log names it). */
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

const DAY_MS = 86_400_000;

/** Starts sessions and hands out token pairs; one session is one refresh-token family. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly accessTokens: AccessTokens,
    private readonly config: AppConfig,
  ) {}

  async start(tx: Tx, subject: TokenSubject, client: ClientInfo): Promise<TokenPair> {
    const sessionId = newId('ses');
    await this.sessions.createSession(tx, {
      id: sessionId,
      userId: subject.userId,
      workspaceId: subject.workspaceId,
      expiresAt: this.refreshExpiry(),
      userAgent: client.userAgent?.slice(0, 512),
      ip: client.ip,
    });
    return this.issue(tx, subject, sessionId);
  }

  /** A new pair in the same session; the session lives as long as its newest refresh token. */
  async continue(tx: Tx, subject: TokenSubject, sessionId: string): Promise<TokenPair> {
    await this.sessions.extendSession(tx, sessionId, this.refreshExpiry());
    return this.issue(tx, subject, sessionId);
  }

  private async issue(tx: Tx, subject: TokenSubject, sessionId: string): Promise<TokenPair> {
    const refreshToken = generateRefreshToken();
    await this.sessions.insertRefreshToken(tx, {
      id: newId('rtk'),
      sessionId,
      tokenHash: hashRefreshToken(refreshToken),
      expiresAt: this.refreshExpiry(),
    });
    return { sessionId, accessToken: this.accessTokens.issue(subject, sessionId), refreshToken, expiresIn: this.accessTokens.ttlSeconds };
  }

  private refreshExpiry(): Date {
    return new Date(Date.now() + this.config.refreshTokenTtlDays * DAY_MS);
  }
}
