import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import type { Platform } from '../../../core/index.js';
import { needsRefresh, type Connection, type UsableConnection } from '../domain/connection.js';
import { ConnectionsRepository } from '../infrastructure/connections.repository.js';
import { PlatformClients } from './platform-clients.js';
import { PublishFailure } from './ports/platform-client.js';

/** How others wait for a connection's refresh; the lease outlasts one grant call (PUBLISH_TIMEOUT_MS). */
const WAIT_STEP_MS = 100;
const LEASE_MARGIN_MS = 5_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Hands out a connection with a usable access token. A token near expiry is refreshed first,
 * by one process at a time per connection (a lease on the row, not a transaction held across
 * the HTTP call); the others wait for its result. A refused refresh marks the connection
 * `needs_reauth`: the user has to connect again.
 */
@Injectable()
export class TokenKeeper {
  private readonly logger = new Logger('Publishing');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly connections: ConnectionsRepository,
    private readonly clients: PlatformClients,
    config: AppConfig,
  ) {
    this.leaseMs = config.publishing.timeoutMs + LEASE_MARGIN_MS;
  }

  private readonly leaseMs: number;

  /**
   * The connection, its token fresh. `rejected` names a token the platform just refused (401):
   * it is refreshed even if its expiry says it is still good.
   */
  async usable(workspaceId: string, platform: Platform, rejected?: string): Promise<UsableConnection> {
    for (let waited = 0; ; waited += WAIT_STEP_MS) {
      const connection = await this.connections.find(this.ds.manager, workspaceId, platform);
      assertConnected(connection, platform);
      if (connection.mode !== this.clients.mode(platform)) {
        // Made in sandbox and now live (or the other way): its tokens mean nothing to this client.
        await this.connections.setStatus(this.ds.manager, workspaceId, connection.id, 'needs_reauth');
        throw new PublishFailure('token_expired', `The ${platform} connection was made in ${connection.mode} mode; connect again.`);
      }
      const stale = rejected !== undefined ? connection.accessToken === rejected : needsRefresh(connection, new Date());
      if (!stale) return connection;
      if (await this.connections.takeRefreshLease(this.ds.manager, workspaceId, connection.id, this.leaseMs, connection.updatedAt)) return this.refresh(connection);
      if (waited >= this.leaseMs) throw new PublishFailure('network_error', `The ${platform} token is being refreshed elsewhere; try again.`);
      await pause(WAIT_STEP_MS);
    }
  }

  private async refresh(connection: Connection): Promise<UsableConnection> {
    const { id, platform, workspaceId } = connection;
    if (!connection.refreshToken) {
      await this.connections.setStatus(this.ds.manager, workspaceId, id, 'needs_reauth');
      throw new PublishFailure('token_expired', `The ${platform} token expired and the platform gave no way to renew it; connect again.`);
    }
    try {
      const tokens = await this.clients.get(platform).refresh(connection.refreshToken);
      await this.connections.storeTokens(this.ds.manager, workspaceId, id, tokens);
      this.logger.log({ msg: 'platform token refreshed', platform, workspace_id: workspaceId });
      return (await this.connections.find(this.ds.manager, workspaceId, platform)) as UsableConnection;
    } catch (err) {
      if (err instanceof PublishFailure && err.code === 'token_expired') {
        // Only if nobody renewed it meanwhile: a rotated refresh token is refused once it was used.
        if (!(await this.connections.markNeedsReauthIfUnchanged(this.ds.manager, workspaceId, id, connection.updatedAt))) {
          return (await this.connections.find(this.ds.manager, workspaceId, platform)) as UsableConnection;
        }
        this.logger.warn({ msg: 'platform refused the refresh; connection needs reauth', platform, workspace_id: workspaceId });
        throw new PublishFailure('token_expired', `${platform} refused to renew the connection (${err.message}); connect again.`);
      }
      await this.connections.releaseRefreshLease(this.ds.manager, workspaceId, id);
      throw err;
    }
  }
}

function assertConnected(connection: Connection | null, platform: Platform): asserts connection is UsableConnection {
  if (!connection || connection.status === 'disconnected' || !connection.accessToken) {
    throw new PublishFailure('not_connected', `The workspace is not connected to ${platform}: the connection was removed. Connect it and schedule the post again.`);
  }
  if (connection.status === 'needs_reauth') throw new PublishFailure('token_expired', `The ${platform} connection needs to be made again.`);
}
