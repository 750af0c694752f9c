import { AppError } from '../../../core/index.js';

/**
 * How far in the past a requested posting time may lie and still mean "now": a client's clock a
 * little behind ours, or a "post at 14:00" form sent at 14:00:20. Such a post is scheduled for
 * now and the dispatcher publishes it at once; anything older is refused (contract §8, README).
 */
export const PAST_SCHEDULE_GRACE_MS = 60_000;

/**
 * When a post asked for `requested` is due: that time when it is ahead (or now), now when it is
 * at most PAST_SCHEDULE_GRACE_MS behind; else 400 `validation_failed` on `field`.
 */
export function postTimeFor(requested: Date, now: Date, field = 'scheduled_at'): Date {
  if (requested.getTime() >= now.getTime()) return requested;
  if (now.getTime() - requested.getTime() <= PAST_SCHEDULE_GRACE_MS) return now;
  const message = `${field} is in the past; send a time from now on (up to ${PAST_SCHEDULE_GRACE_MS / 1000} s ago is taken as now).`;
  throw new AppError('validation_failed', message, [{ field, message: `must not be more than ${PAST_SCHEDULE_GRACE_MS / 1000} s in the past` }]);
}
