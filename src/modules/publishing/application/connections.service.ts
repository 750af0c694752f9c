import { createHash, randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Platform } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { canPostWith, statusFor, type Connection, type UsableConnection } from '../domain/connection.js';
import { isInAppPath } from '../domain/redirect-path.js';
import { ConnectionsRepository } from '../infrastructure/connections.repository.js';
import { OAuthStatesRepository } from '../infrastructure/oauth-states.repository.js';
import { TokenCipher } from '../infrastructure/token-cipher.js';
import { PlatformClients } from './platform-clients.js';
import { PublishFailure, type Board } from './ports/platform-client.js';
import { TokenKeeper } from './token-keeper.js';

const STATE_TTL_SECONDS = 600;

/** The connection as a client sees it (contract §8). */
export interface IntegrationView {
  platform: Platform;
  connected: boolean;
  status: string;
  mode: 'live' | 'sandbox';
  account: { id: string; name: string } | null;
  scopes: string[];
  connected_at: string | null;
  expires_at: string | null;
  default_board_id: string | null;
}

/** Where the callback sends the browser: the app, with the outcome in the query; and whose app it is. */
export interface CallbackOutcome {
  location: string;
  workspaceId: string;
  connected: boolean;
}

/** Connecting a workspace to a platform with OAuth 2 (PKCE where supported), and what follows. */
@Injectable()
export class ConnectionsService {
  private readonly logger = new Logger('Publishing');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly config: AppConfig,
    private readonly connections: ConnectionsRepository,
    private readonly states: OAuthStatesRepository,
    private readonly cipher: TokenCipher,
    private readonly clients: PlatformClients,
    private readonly keeper: TokenKeeper,
    private readonly audit: AuditLog,
  ) {}

  async view(workspaceId: string, platform: Platform): Promise<IntegrationView> {
    const c = await this.connections.find(this.ds.manager, workspaceId, platform);
    return toView(platform, c, this.clients.mode(platform));
  }

  /** The consent URL, with a signed single-use state bound to the user and the in-app return path. */
  async authUrl(workspaceId: string, userId: string, platform: Platform, redirectPath: string): Promise<string> {
    if (!isInAppPath(redirectPath)) {
      throw new AppError('validation_failed', 'redirect must be an in-app path starting with a single "/".', [{ field: 'redirect', message: 'must be an in-app path such as /settings/integrations' }]);
    }
    const client = this.clients.get(platform);
    const id = randomBytes(24).toString('base64url');
    const verifier = client.supportsPkce ? randomBytes(48).toString('base64url') : null;
    await this.states.insert(this.ds.manager, { id, workspaceId, userId, platform, redirectPath, codeVerifier: verifier }, STATE_TTL_SECONDS);
    return client.authorizeUrl({
      state: this.cipher.sign(id),
      redirectUri: this.clients.callbackUrl(platform),
      codeChallenge: verifier ? createHash('sha256').update(verifier).digest('base64url') : undefined,
    });
  }

  /**
   * The platform sent the user back. A bad, reused, expired or foreign state is 400; a refusal or
   * a failed exchange sends the user back to the app with `?error=`.
   */
  async callback(platform: Platform, q: { code?: string; state?: string; error?: string }): Promise<CallbackOutcome> {
    const stateId = q.state ? this.cipher.verify(q.state) : null;
    const state = stateId ? await this.states.consume(this.ds.manager, stateId) : null;
    if (!state || state.platform !== platform) throw new AppError('invalid_oauth_state', 'The connection link is invalid, expired or was already used; start again.');
    const back = (key: 'connected' | 'error', value: string): CallbackOutcome => ({
      location: this.appLocation(state.redirectPath, key, value), workspaceId: state.workspaceId, connected: key === 'connected',
    });
    if (q.error || !q.code) return back('error', q.error ? 'access_denied' : 'missing_code');
    try {
      const granted = await this.clients.get(platform).exchangeCode({ code: q.code, redirectUri: this.clients.callbackUrl(platform), codeVerifier: state.codeVerifier ?? undefined });
      // The callback is open (the platform's redirect carries no session): the actor is whoever started the flow.
      await inTransaction(this.ds, async (tx) => {
        const c = await this.connections.upsertConnected(tx, {
          id: newId('int'), workspaceId: state.workspaceId, platform, mode: this.clients.mode(platform),
          accountId: granted.account.id, accountName: granted.account.name, ...granted,
        });
        await this.audit.record(tx, { workspaceId: state.workspaceId, actorUserId: state.userId, action: 'integration.connected', targetType: 'integration', targetId: c.id, details: { platform } });
      });
      this.logger.log({ msg: 'platform connected', platform, workspace_id: state.workspaceId, mode: this.clients.mode(platform) });
      return back('connected', platform);
    } catch (err) {
      const code = err instanceof PublishFailure ? err.code : 'unknown_error';
      this.logger.warn({ msg: 'platform connection failed', platform, workspace_id: state.workspaceId, code, err: String(err) });
      return back('error', code);
    }
  }

  /** Sandbox mode's consent screen, agreed at once: where to send the browser (our own callback only). */
  sandboxConsent(platform: Platform, state: string): string {
    if (this.clients.mode(platform) !== 'sandbox') throw AppError.notFound('Route');
    const target = new URL(this.clients.callbackUrl(platform));
    target.searchParams.set('code', `sandbox_${randomBytes(12).toString('hex')}`);
    target.searchParams.set('state', state);
    return target.toString();
  }

  async disconnect(caller: { workspaceId: string; userId: string }, platform: Platform): Promise<void> {
    const { workspaceId } = caller;
    const c = await this.connections.find(this.ds.manager, workspaceId, platform);
    if (!c || c.status === 'disconnected') return;
    if (c.accessToken) await this.clients.get(platform).revoke({ accessToken: c.accessToken, refreshToken: c.refreshToken }).catch(() => undefined);
    await inTransaction(this.ds, async (tx) => {
      await this.connections.disconnect(tx, workspaceId, c.id);
      await this.audit.record(tx, { workspaceId, actorUserId: caller.userId, action: 'integration.disconnected', targetType: 'integration', targetId: c.id, details: { platform } });
    });
    this.logger.log({ msg: 'platform disconnected', platform, workspace_id: workspaceId });
  }

  async boards(workspaceId: string, platform: Platform): Promise<Board[]> {
    const client = this.clients.get(platform);
    if (!client.listBoards) throw AppError.notFound('Boards');
    const connection = await this.connected(workspaceId, platform);
    try {
      return await client.listBoards(connection.accessToken);
    } catch (err) {
      throw upstream(platform, err);
    }
  }

  async setDefaultBoard(workspaceId: string, platform: Platform, boardId: string): Promise<IntegrationView> {
    const boards = await this.boards(workspaceId, platform);
    if (!boards.some((b) => b.id === boardId)) throw AppError.notFound('Board');
    const c = (await this.connections.find(this.ds.manager, workspaceId, platform))!;
    await this.connections.setDefaultBoard(this.ds.manager, workspaceId, c.id, boardId);
    return this.view(workspaceId, platform);
  }

  /**
   * 409 `integration_not_connected` unless posts can go out on each platform (`canPostWith`):
   * asked when posts are scheduled, before anything is written. Reads only our rows (no platform
   * call), in the caller's transaction. `name` is the platform as the client spelled it.
   */
  async requirePostable(tx: Tx, workspaceId: string, targets: ReadonlyArray<{ name: string; platform: Platform }>): Promise<void> {
    const now = new Date();
    const checked = new Set<Platform>();
    for (const { name, platform } of targets) {
      if (checked.has(platform)) continue;
      checked.add(platform);
      const connection = await this.connections.find(tx, workspaceId, platform);
      if (!canPostWith(connection, this.clients.mode(platform), now)) {
        const status = statusFor(connection, this.clients.mode(platform), now);
        throw new AppError('integration_not_connected', `Connect ${name} first: the workspace's connection is ${status}.`, { platform: name, status });
      }
    }
  }

  /** The connection with a usable token, or 409 `integration_not_connected`. */
  async connected(workspaceId: string, platform: Platform): Promise<UsableConnection> {
    try {
      return await this.keeper.usable(workspaceId, platform);
    } catch (err) {
      if (err instanceof PublishFailure && (err.code === 'token_expired' || err.code === 'not_connected')) {
        throw new AppError('integration_not_connected', `Connect ${platform} first: ${err.message}`, { platform });
      }
      throw upstream(platform, err);
    }
  }

  private appLocation(path: string, key: string, value: string): string {
    const url = new URL(path, `${this.config.appUrl}/`);
    url.searchParams.set(key, value);
    return `${this.config.appUrl}${url.pathname}${url.search}${url.hash}`;
  }
}

function toView(platform: Platform, c: Connection | null, mode: 'live' | 'sandbox'): IntegrationView {
  const status = statusFor(c, mode, new Date());
  return {
    platform,
    connected: status === 'connected',
    status,
    mode: c && status !== 'disconnected' ? c.mode : mode,
    account: c && status !== 'disconnected' && c.accountId ? { id: c.accountId, name: c.accountName ?? c.accountId } : null,
    scopes: c && status !== 'disconnected' ? c.scopes : [],
    connected_at: c && status !== 'disconnected' ? (c.connectedAt?.toISOString() ?? null) : null,
    expires_at: c && status !== 'disconnected' ? (c.expiresAt?.toISOString() ?? null) : null,
    default_board_id: c?.defaultBoardId ?? null,
  };
}

export function upstream(platform: Platform, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = err instanceof PublishFailure ? err.code : 'unknown_error';
  const message = err instanceof PublishFailure ? err.message : `${platform} could not be reached.`;
  return new AppError('upstream_failed', message, { platform, code });
}
