import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import type { PostingHistory } from '../domain/slots.js';

/** Where past engagement comes from: the analytics context, which installs itself at boot. */
export abstract class PostingHistorySource {
  /**
   * A character's past engagement on each platform asked for, its hours in `timeZone` (the
   * character's posting timezone), in one read. The caller has found the character in the workspace.
   */
  abstract historiesOf(workspaceId: string, characterId: string, platforms: readonly Platform[], timeZone: string): Promise<Partial<Record<Platform, PostingHistory>>>;
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

  historiesOf(workspaceId: string, characterId: string, platforms: readonly Platform[], timeZone: string): Promise<Partial<Record<Platform, PostingHistory>>> {
    return this.source ? this.source.historiesOf(workspaceId, characterId, platforms, timeZone) : Promise.resolve({});
  }
}
