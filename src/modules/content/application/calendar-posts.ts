import { Injectable } from '@nestjs/common';

/** A scheduled post as the calendar shows it: the instant that places it, and its wire body. */
export interface CalendarPost {
  /** When it was published, else when it is scheduled. */
  at: Date;
  body: Record<string, unknown>;
}

export type CalendarPostsSource = (workspaceId: string, range: { startsAt: Date; endsBefore: Date; characterId?: string }) => Promise<CalendarPost[]>;

/**
 * The calendar's seam for scheduled posts: the publishing context owns them and plugs its source
 * in through the content facade at start-up. Until then the calendar shows none.
 */
@Injectable()
export class CalendarPosts {
  private source?: CalendarPostsSource;

  provide(source: CalendarPostsSource): void {
    this.source = source;
  }

  between(workspaceId: string, range: { startsAt: Date; endsBefore: Date; characterId?: string }): Promise<CalendarPost[]> {
    return this.source ? this.source(workspaceId, range) : Promise.resolve([]);
  }
}
