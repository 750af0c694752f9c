import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import { isShortcode } from '../domain/affiliate-link.js';
import { isBotUserAgent } from '../domain/bots.js';
import { clickDay } from '../domain/clicks.js';
import { LinkTargets } from './link-targets.js';
import { ClickStore } from './ports/click-store.js';

/** How often a failing click store is logged at most (an outage would otherwise log every click). */
const WARN_EVERY_MS = 60_000;

/** The public redirect: where a shortcode leads, counting the visit unless a bot made it. */
@Injectable()
export class Redirects {
  private readonly logger = new Logger('Monetization');
  private lastWarn = 0;

  constructor(
    private readonly targets: LinkTargets,
    private readonly clicks: ClickStore,
  ) {}

  /**
   * The destination of `shortcode` (404 when no link has it). A person's visit is counted before
   * the answer (in Redis, sent together with the clicks arriving meanwhile); a store that fails does not stop the visitor, it is logged.
   */
  async follow(shortcode: string, userAgent: string | undefined): Promise<string> {
    const target = isShortcode(shortcode) ? await this.targets.of(shortcode) : null;
    if (!target) throw AppError.notFound('Link');
    if (!isBotUserAgent(userAgent)) {
      await this.clicks.add(target.id, clickDay(new Date())).catch((err: unknown) => this.warn(err));
    }
    return target.destinationUrl;
  }

  private warn(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarn < WARN_EVERY_MS) return;
    this.lastWarn = now;
    this.logger.warn({ msg: 'click not counted: the click store failed', err: String(err) });
  }
}
