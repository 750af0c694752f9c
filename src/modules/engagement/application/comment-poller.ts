import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { PeriodicPasses, type PeriodicPass } from '../../../platform/queue/index.js';
import { PublishingFacade, type InboundComment } from '../../publishing/index.js';
import type { InboundMessage } from '../domain/inbound.js';
import { ResponderSettingsRepository } from '../infrastructure/responder-settings.repository.js';
import { InboundIntake } from './inbound-intake.js';
import { outages } from '../../../platform/health/index.js';

/** A platform whose comments can be read by polling. */
type Polled = 'youtube' | 'twitter';

/**
 * Reads new comments where a platform has no webhooks (YouTube; X mentions when
 * `ENGAGEMENT_POLL_PLATFORMS` names it), for every workspace with a character
 * answering there, within the metric reads' quota reserve (the publishing facade spends it). A
 * comment read twice (two workers, an overlap) is stored once; the cursor only moves forward.
 */
@Injectable()
export class CommentPoller {
  private readonly logger = new Logger('Engagement');
  private readonly pass: PeriodicPass;
  private readonly polled: readonly Polled[];

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly publishing: PublishingFacade,
    private readonly settings: ResponderSettingsRepository,
    private readonly intake: InboundIntake,
    config: AppConfig,
    passes: PeriodicPasses,
  ) {
    this.polled = config.engagement.pollPlatforms;
    this.pass = passes.register({ name: 'engagement.comment-poll', everyMs: config.engagement.pollIntervalMs, pass: () => this.sweep() });
  }

  /** One pass now (joined with one running); answers the comments stored. */
  poll(): Promise<number> {
    return this.pass.run(new Date());
  }

  private async sweep(): Promise<number> {
    let stored = 0;
    for (const platform of this.polled) {
      for (const workspaceId of await this.settings.workspacesAnswering(platform)) {
        try {
          stored += await this.pollOne(workspaceId, platform);
        } catch (err) {
          if (await outages.covers(err)) throw err; // the pass ends; the outage log says it once
          this.logger.warn({ msg: 'comment poll failed', workspace_id: workspaceId, platform, err: String(err) });
        }
      }
    }
    return stored;
  }

  private async pollOne(workspaceId: string, platform: Polled): Promise<number> {
    const rows: Array<{ read_until: Date }> = await this.ds.query('SELECT read_until FROM engagement_poll_cursors WHERE workspace_id = $1 AND platform = $2', [workspaceId, platform]);
    const [connection] = (await this.publishing.connectionsOf(workspaceId)).filter((c) => c.platform === platform);
    if (!connection) return 0;
    // The first pass only marks where listening starts: comments made before the responder was on are not answered.
    const since: Date | null = rows[0]?.read_until ?? null;
    const fresh = since === null ? [] : (await this.publishing.readComments(workspaceId, platform, since)).filter((c) => c.createdAt > since);
    const { stored } = await this.intake.receive(fresh.map((c) => toInbound(platform, connection.accountId, c)));
    const until = fresh.reduce((max, c) => (c.createdAt > max ? c.createdAt : max), since ?? new Date());
    await this.ds.query(
      `INSERT INTO engagement_poll_cursors (workspace_id, platform, read_until) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, platform) DO UPDATE SET read_until = GREATEST(engagement_poll_cursors.read_until, EXCLUDED.read_until)`,
      [workspaceId, platform, until],
    );
    return stored;
  }
}

function toInbound(platform: Polled, accountId: string, c: InboundComment): InboundMessage {
  return {
    platform, accountId, channel: 'comment', platformMessageId: c.remoteMessageId, authorId: c.authorId, authorName: c.authorName,
    text: c.text, remotePostId: c.remotePostId, replyTarget: c.remoteMessageId, own: c.authorId === accountId, createdAt: c.createdAt,
  };
}
