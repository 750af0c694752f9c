import { Injectable } from '@nestjs/common';
import { ContentFacade, type ItemView, type Ordered } from '../../content/index.js';
import { approval, mediumReview, rejection } from '../domain/decisions.js';

/**
 * Moderation of a character's content: approve, reject, regenerate and per-medium review. Each
 * decision is taken on the item under its row lock and checks the state machine first, so a
 * refused action changes nothing.
 */
@Injectable()
export class ModerationService {
  constructor(private readonly content: ContentFacade) {}

  approve(workspaceId: string, characterId: string, contentId: string): Promise<ItemView> {
    return this.content.review(workspaceId, characterId, contentId, approval);
  }

  reject(workspaceId: string, characterId: string, contentId: string, reason?: string): Promise<ItemView> {
    return this.content.review(workspaceId, characterId, contentId, (item) => rejection(item, reason));
  }

  reviewMedium(workspaceId: string, characterId: string, contentId: string, index: number, decision: 'approve' | 'reject'): Promise<ItemView> {
    return this.content.review(workspaceId, characterId, contentId, (item) => mediumReview(item, index, decision));
  }

  /** A new job and a new charge; the item waits in the queue again. */
  regenerate(workspaceId: string, characterId: string, contentId: string): Promise<Ordered> {
    return this.content.regenerate(workspaceId, characterId, contentId);
  }
}
