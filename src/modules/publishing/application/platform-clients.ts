import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import type { Platform } from '../../../core/index.js';
import { liveClient } from '../infrastructure/platforms/index.js';
import { SandboxClient } from '../infrastructure/sandbox-client.js';
import type { ConnectionMode } from '../domain/connection.js';
import type { PlatformClient } from './ports/platform-client.js';

/** Pinterest publishes to boards; its sandbox offers some too. */
const BOARD_PLATFORMS: ReadonlySet<Platform> = new Set(['pinterest']);

/**
 * The client of each platform: its live adapter when client credentials are configured, else the
 * sandbox (contract §8). Built once; adapters hold no per-user state.
 */
@Injectable()
export class PlatformClients {
  private readonly clients = new Map<Platform, PlatformClient>();
  private readonly modes = new Map<Platform, ConnectionMode>();

  constructor(private readonly config: AppConfig) {
    const settings = config.publishing;
    for (const [platform, credentials] of Object.entries(settings.platforms) as Array<[Platform, (typeof settings.platforms)[Platform]]>) {
      if (credentials) {
        this.clients.set(platform, liveClient(platform, { ...credentials, timeoutMs: settings.timeoutMs, pollIntervalMs: settings.pollIntervalMs, pollTimeoutMs: settings.pollTimeoutMs }));
        this.modes.set(platform, 'live');
      } else {
        this.clients.set(platform, new SandboxClient(platform, `${config.publicUrl}/api/v1/integrations/${platform}/sandbox-consent`, BOARD_PLATFORMS.has(platform)));
        this.modes.set(platform, 'sandbox');
      }
    }
  }

  get(platform: Platform): PlatformClient {
    return this.clients.get(platform)!;
  }

  mode(platform: Platform): ConnectionMode {
    return this.modes.get(platform)!;
  }

  /** Where platforms send the user back after consent. */
  callbackUrl(platform: Platform): string {
    return `${this.config.publicUrl}/api/v1/integrations/${platform}/callback`;
  }
}
