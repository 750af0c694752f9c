import { Injectable } from '@nestjs/common';
import type { Caller } from '../../../core/index.js';
import { AuditLog, type AuditAction } from '../../audit/index.js';
import { ContentFacade, type ItemView, type Ordered, type ReviewRecorder } from '../../content/index.js';
import { approval, mediumReview, rejection } from '../domain/decisions.js';

export type Reviewer = Pick<Caller, 'workspaceId' | 'userId'>;

/**
 * Moderation of a character's content: approve, reject, regenerate and per-medium review. Each
 * decision is taken on the item under its row lock and checks the state machine first, so a
 * refused action changes nothing; a decision taken is audited in the same transaction.
 */
@Injectable()
export class ModerationService {
  constructor(
    private readonly content: ContentFacade,
    private readonly audit: AuditLog,
  ) {}

  approve(reviewer: Reviewer, characterId: string, contentId: string): Promise<ItemView> {
    return this.content.review(reviewer.workspaceId, characterId, contentId, approval, this.recorder(reviewer, 'content.approved', {}));
  }

  reject(reviewer: Reviewer, characterId: string, contentId: string, reason?: string): Promise<ItemView> {
    const record = this.recorder(reviewer, 'content.rejected', { reason: reason ?? null });
    return this.content.review(reviewer.workspaceId, characterId, contentId, (item) => rejection(item, reason), record);
  }

  reviewMedium(reviewer: Reviewer, characterId: string, contentId: string, index: number, decision: 'approve' | 'reject'): Promise<ItemView> {
    const record = this.recorder(reviewer, 'content.media_reviewed', { media_index: index, decision });
    return this.content.review(reviewer.workspaceId, characterId, contentId, (item) => mediumReview(item, index, decision), record);
  }

  /** A new job and a new charge; the item waits in the queue again. */
  regenerate(workspaceId: string, characterId: string, contentId: string): Promise<Ordered> {
    return this.content.regenerate(workspaceId, characterId, contentId);
  }

  /** The entry names the item's status before and after, so a per-medium review that approved the item says so. */
  private recorder(reviewer: Reviewer, action: AuditAction, details: Record<string, unknown>): ReviewRecorder {
    return (tx, before, change) =>
      this.audit.record(tx, {
        workspaceId: reviewer.workspaceId, actorUserId: reviewer.userId, action, targetType: 'content', targetId: before.id,
        details: { character_id: before.characterId, from: before.status, to: change.status, ...details },
      });
  }
}
