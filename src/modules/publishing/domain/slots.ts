import type { Platform } from '../../../core/index.js';
import { addDays, dateKey, localParts, zonedInstant, type LocalDate } from './zoned-time.js';

/** Good posting hours, local time: mid-morning, lunch, after work, evening (4 h apart). */
const SLOT_MINUTES = [9 * 60, 13 * 60, 17 * 60, 21 * 60];
/** Posts of one platform are at least this far apart. */
export const MIN_GAP_MS = 4 * 3600_000;
/** Platform caps per local day (contract §8); the others are bounded by the gap alone. */
const DAILY_CAP: Partial<Record<Platform, number>> = { youtube: 6, pinterest: 12 };
/**
 * Each platform posts at its own minute past the slot, so one item on several platforms goes out
 * staggered rather than everywhere at once.
 */
const STAGGER_MINUTES: Record<Platform, number> = { instagram: 0, tiktok: 20, twitter: 40, youtube: 60, pinterest: 80 };

export interface SlotTarget {
  contentId: string;
  /** The platforms to post the item to: the spelling kept for the post, and the platform it means. */
  platforms: ReadonlyArray<{ name: string; platform: Platform }>;
}

export interface Slot {
  contentId: string;
  platform: string;
  platformKey: Platform;
  at: Date;
}

export interface SlotPlan {
  targets: readonly SlotTarget[];
  /** Posts already planned or made on the character's platforms; new ones keep their distance. */
  existing: ReadonlyArray<{ platform: Platform; at: Date }>;
  /** No slot before this instant. */
  notBefore: Date;
  days: number;
  timezone: string;
}

/**
 * Gives each item the earliest good slot on each of its platforms, in order, within `days` local
 * days from `notBefore`. Items that do not fit get no slot.
 */
export function allocateSlots(plan: SlotPlan): Slot[] {
  const taken = new Map<Platform, number[]>();
  for (const e of plan.existing) takenOf(taken, e.platform).push(e.at.getTime());
  const firstDay = localParts(plan.notBefore, plan.timezone);
  const slots: Slot[] = [];
  for (const target of plan.targets) {
    for (const { name, platform } of target.platforms) {
      const at = firstFreeSlot(platform, takenOf(taken, platform), firstDay, plan);
      if (!at) continue;
      takenOf(taken, platform).push(at.getTime());
      slots.push({ contentId: target.contentId, platform: name, platformKey: platform, at });
    }
  }
  return slots;
}

function takenOf(taken: Map<Platform, number[]>, platform: Platform): number[] {
  let list = taken.get(platform);
  if (!list) taken.set(platform, (list = []));
  return list;
}

function firstFreeSlot(platform: Platform, taken: number[], firstDay: LocalDate, plan: SlotPlan): Date | null {
  for (let d = 0; d < plan.days; d++) {
    const day = addDays(firstDay, d);
    if (dayIsFull(platform, taken, day, plan.timezone)) continue;
    for (const minutes of SLOT_MINUTES) {
      const at = zonedInstant(day, minutes + STAGGER_MINUTES[platform], plan.timezone);
      if (at < plan.notBefore) continue;
      if (taken.every((t) => Math.abs(t - at.getTime()) >= MIN_GAP_MS)) return at;
    }
  }
  return null;
}

function dayIsFull(platform: Platform, taken: number[], day: LocalDate, timezone: string): boolean {
  const cap = DAILY_CAP[platform];
  if (cap === undefined) return false;
  const key = dateKey(day);
  return taken.filter((t) => dateKey(localParts(new Date(t), timezone)) === key).length >= cap;
}
