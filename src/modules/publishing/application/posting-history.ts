import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import type { PostingHistory } from '../domain/slots.js';

/** Where past engagement comes from: the analytics context, which installs itself at boot. */
export abstract class PostingHistorySource {
  abstract historyOf(workspaceId: string, characterId: string, platform: Platform): Promise<PostingHistory | null>;
}

/**
 * The slot planner's one way to past engagement. Publishing cannot depend on analytics (analytics
 * reads publishing), so analytics hands its source in at boot; without one, every plan keeps the
 * default hours.
 */
@Injectable()
export class PostingHistories {
  private source: PostingHistorySource | null = null;

  /** Installs the source; a second one is a wiring mistake, so it stops the boot. */
  use(source: PostingHistorySource): void {
    if (this.source) throw new Error('A posting history source is already installed');
    this.source = source;
  }

  historyOf(workspaceId: string, characterId: string, platform: Platform): Promise<PostingHistory | null> {
    return this.source ? this.source.historyOf(workspaceId, characterId, platform) : Promise.resolve(null);
  }
}
