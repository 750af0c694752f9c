import { AppError } from '../../../core/index.js';
import type { ContentItem, ContentStatus } from './content-item.js';

/**
 * What can happen to a content item. `start`, `finish` and `fail` are done by its job; `approve`,
 * `reject` and `regenerate` by moderation; `publish` by the publishing context.
 */
export const CONTENT_ACTIONS = ['start', 'finish', 'fail', 'approve', 'reject', 'regenerate', 'publish'] as const;
export type ContentAction = (typeof CONTENT_ACTIONS)[number];

/**
 * The whole state machine (contract §6): from each status, the actions allowed and where they
 * lead. Anything absent is refused. `fail` is also allowed from `queued` because a job can fail
 * before it starts generating (its character gone, a provider refusing the request up front).
 */
const TRANSITIONS: Readonly<Record<ContentAction, Partial<Record<ContentStatus, ContentStatus>>>> = {
  start: { queued: 'generating' },
  finish: { generating: 'ready' },
  fail: { queued: 'failed', generating: 'failed' },
  approve: { ready: 'approved', rejected: 'approved' },
  reject: { ready: 'rejected', approved: 'rejected' },
  regenerate: { ready: 'queued', rejected: 'queued', failed: 'queued', approved: 'queued' },
  publish: { approved: 'published' },
};

export function canTransition(from: ContentStatus, action: ContentAction): boolean {
  return TRANSITIONS[action][from] !== undefined;
}

/**
 * The status after `action`, or 409 `invalid_state_transition` with `{from, action}`. Under
 * autopilot a finished item skips review and goes straight to `approved`.
 */
export function nextStatus(from: ContentStatus, action: ContentAction, opts: { autopilot?: boolean } = {}): ContentStatus {
  const to = TRANSITIONS[action][from];
  if (to === undefined) throw AppError.invalidTransition(from, action);
  if (action === 'finish' && opts.autopilot) return 'approved';
  return to;
}

/**
 * The customer event a status change makes: `content.ready` when an item reaches review,
 * `content.approved` when it becomes approved (by review, by its media all approved, or straight
 * from generation under autopilot, which skips review and so makes no `content.ready`). `from` is
 * null for an item made already finished. Nothing for a change that does not move the status.
 */
export function statusEvent(from: ContentStatus | null, to: ContentStatus): 'content.ready' | 'content.approved' | null {
  if (from === to) return null;
  if (to === 'ready') return 'content.ready';
  if (to === 'approved') return 'content.approved';
  return null;
}

/** Caption, hashtags, planning and the like may change until the item is published. */
export function assertEditable(status: ContentStatus): void {
  if (status === 'published') throw AppError.invalidTransition(status, 'edit');
}

/** Caption variants can change until the item is published; from then on they are locked. */
export function assertVariantsOpen(item: Pick<ContentItem, 'status' | 'variantsLocked'>): void {
  if (item.variantsLocked || item.status === 'published') {
    throw new AppError('variants_locked', 'The caption variants are locked: the content is published.');
  }
}
