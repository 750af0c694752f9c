import { describe, expect, it } from '@jest/globals';
import { AppError, CORE_ERRORS } from '../../../core/index.js';
import { CONTENT_ERRORS } from '../errors.js';
import { CONTENT_STATUSES, type ContentStatus } from './content-item.js';
import { assertEditable, canTransition, CONTENT_ACTIONS, nextStatus, statusEvent, type ContentAction } from './content-status.js';

/** The contract's table (§6), written out independently of the implementation. */
const ALLOWED: Record<ContentAction, Partial<Record<ContentStatus, ContentStatus>>> = {
  start: { queued: 'generating' },
  finish: { generating: 'ready' },
  fail: { queued: 'failed', generating: 'failed' },
  approve: { ready: 'approved', rejected: 'approved' },
  reject: { ready: 'rejected', approved: 'rejected' },
  regenerate: { ready: 'queued', rejected: 'queued', failed: 'queued', approved: 'queued' },
  publish: { approved: 'published' },
};

/** The statuses the edge answers these codes with. */
const STATUS: Record<string, number> = { ...CORE_ERRORS, ...CONTENT_ERRORS };

const pairs = CONTENT_ACTIONS.flatMap((action) => CONTENT_STATUSES.map((from) => [from, action] as const));

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('content state machine', () => {
  it('covers all 7 statuses × 7 actions', () => {
    expect(pairs).toHaveLength(49);
  });

  it.each(pairs.filter(([from, action]) => ALLOWED[action][from] !== undefined))('%s --%s--> allowed', (from, action) => {
    expect(canTransition(from, action)).toBe(true);
    expect(nextStatus(from, action)).toBe(ALLOWED[action][from]);
  });

  it.each(pairs.filter(([from, action]) => ALLOWED[action][from] === undefined))('%s --%s--> refused with 409', (from, action) => {
    expect(canTransition(from, action)).toBe(false);
    const err = refusal(() => nextStatus(from, action));
    expect(err.code).toBe('invalid_state_transition');
    expect(STATUS[err.code]).toBe(409);
    expect(err.details).toEqual({ from, action });
  });

  it('under autopilot a finished item is approved at once; other moves are unchanged', () => {
    expect(nextStatus('generating', 'finish', { autopilot: true })).toBe('approved');
    expect(nextStatus('generating', 'finish', { autopilot: false })).toBe('ready');
    expect(nextStatus('ready', 'reject', { autopilot: true })).toBe('rejected');
    expect(nextStatus('failed', 'regenerate', { autopilot: true })).toBe('queued');
    expect(() => nextStatus('queued', 'finish', { autopilot: true })).toThrow(AppError);
  });

  it('edits are allowed until publication', () => {
    for (const s of CONTENT_STATUSES.filter((x) => x !== 'published')) expect(() => assertEditable(s)).not.toThrow();
    expect(refusal(() => assertEditable('published')).details).toEqual({ from: 'published', action: 'edit' });
  });
});

describe('variant lock', () => {
  it('refuses variant changes once published or locked, with 409 variants_locked', async () => {
    const { assertVariantsOpen } = await import('./content-status.js');
    for (const s of CONTENT_STATUSES.filter((x) => x !== 'published')) expect(() => assertVariantsOpen({ status: s, variantsLocked: false })).not.toThrow();
    expect(refusal(() => assertVariantsOpen({ status: 'published', variantsLocked: false })).code).toBe('variants_locked');
    expect(STATUS[refusal(() => assertVariantsOpen({ status: 'approved', variantsLocked: true })).code]).toBe(409);
  });
});

describe('status events (content.ready, content.approved)', () => {
  it('names content.ready when an item reaches review, and content.approved when it becomes approved', () => {
    expect(statusEvent('generating', nextStatus('generating', 'finish'))).toBe('content.ready');
    expect(statusEvent('generating', nextStatus('generating', 'finish', { autopilot: true }))).toBe('content.approved');
    expect(statusEvent('ready', nextStatus('ready', 'approve'))).toBe('content.approved');
    expect(statusEvent('rejected', nextStatus('rejected', 'approve'))).toBe('content.approved');
    expect(statusEvent(null, 'ready')).toBe('content.ready');
    expect(statusEvent(null, 'approved')).toBe('content.approved');
  });

  it('names nothing for a change that does not move the status there (a medium reviewed on an approved item), nor for other statuses', () => {
    expect(statusEvent('approved', 'approved')).toBeNull();
    expect(statusEvent('ready', 'ready')).toBeNull();
    for (const to of CONTENT_STATUSES.filter((s) => s !== 'ready' && s !== 'approved')) expect(statusEvent('ready', to)).toBeNull();
  });
});
