import { describe, expect, it } from '@jest/globals';
import type { Platform } from '../../../core/index.js';
import { allocateSlots, hoursFromHistory, MIN_GAP_MS, type HourScore, type Slot, type SlotPlan, type SlotTarget } from './slots.js';
import { dateKey, localParts, zonedInstant, type LocalDate } from '../../../core/index.js';

const NY = 'America/New_York';
const KOLKATA = 'Asia/Kolkata';
const ALL: Platform[] = ['instagram', 'tiktok', 'twitter', 'youtube', 'pinterest'];
const STAGGER: Record<Platform, number> = { instagram: 0, tiktok: 20, twitter: 40, youtube: 60, pinterest: 80 };
const GOOD_MINUTES = [9 * 60, 13 * 60, 17 * 60, 21 * 60];

function local(date: LocalDate, hour: number, minute: number, zone: string): Date {
  return zonedInstant(date, hour * 60 + minute, zone);
}

function targets(count: number, platforms: Platform[], prefix = 'c'): SlotTarget[] {
  return Array.from({ length: count }, (_, i) => ({ contentId: `${prefix}${i}`, platforms: platforms.map((p) => ({ name: p, platform: p })) }));
}

function plan(overrides: Partial<SlotPlan> & Pick<SlotPlan, 'targets'>): SlotPlan {
  return { existing: [], notBefore: local(JUNE_1, 0, 0, NY), days: 7, timezone: NY, ...overrides };
}

const iso = (slots: Slot[]) => slots.map((s) => s.at.toISOString());
const JUNE_1: LocalDate = { year: 2026, month: 6, day: 1 };

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** Every slot sits at a good hour plus its platform's stagger, in the plan's zone. */
function expectGoodLocalTimes(slots: Slot[], zone: string): void {
  for (const s of slots) {
    const p = localParts(s.at, zone);
    const allowed = GOOD_MINUTES.map((m) => `${dateKey(p)} ${hhmm(m + STAGGER[s.platformKey])} ${s.platformKey}`);
    expect(allowed).toContain(`${dateKey(p)} ${hhmm(p.hour * 60 + p.minute)} ${s.platformKey}`);
  }
}

describe('allocateSlots: good hours', () => {
  it('fills 09:00, 13:00, 17:00, 21:00 local, then the next day', () => {
    const slots = allocateSlots(plan({ targets: targets(5, ['instagram']) }));
    // June: New York is UTC-4.
    expect(iso(slots)).toEqual([
      '2026-06-01T13:00:00.000Z', '2026-06-01T17:00:00.000Z', '2026-06-01T21:00:00.000Z', '2026-06-02T01:00:00.000Z', '2026-06-02T13:00:00.000Z',
    ]);
    expect(slots.map((s) => s.contentId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('uses the plan timezone (Asia/Kolkata, +05:30)', () => {
    const slots = allocateSlots(plan({ targets: targets(2, ['instagram']), timezone: KOLKATA, notBefore: local(JUNE_1, 0, 0, KOLKATA) }));
    expect(iso(slots)).toEqual(['2026-06-01T03:30:00.000Z', '2026-06-01T07:30:00.000Z']);
  });

  it('staggers one item on several platforms to different instants, keeping the spelling sent', () => {
    const slots = allocateSlots(plan({
      targets: [{
        contentId: 'c1',
        platforms: [
          { name: 'photo_share', platform: 'instagram' }, { name: 'tiktok', platform: 'tiktok' }, { name: 'x', platform: 'twitter' },
          { name: 'youtube', platform: 'youtube' }, { name: 'pinboard', platform: 'pinterest' },
        ],
      }],
    }));
    expect(slots.map((s) => [s.platform, s.platformKey, s.at.toISOString()])).toEqual([
      ['photo_share', 'instagram', '2026-06-01T13:00:00.000Z'],
      ['tiktok', 'tiktok', '2026-06-01T13:20:00.000Z'],
      ['x', 'twitter', '2026-06-01T13:40:00.000Z'],
      ['youtube', 'youtube', '2026-06-01T14:00:00.000Z'],
      ['pinboard', 'pinterest', '2026-06-01T14:20:00.000Z'],
    ]);
  });

  it('never gives a slot before notBefore', () => {
    const slots = allocateSlots(plan({ targets: targets(1, ['instagram', 'tiktok']), notBefore: local(JUNE_1, 13, 1, NY) }));
    expect(slots.map((s) => [s.platformKey, s.at.toISOString()])).toEqual([
      ['instagram', '2026-06-01T21:00:00.000Z'], // 17:00 local; 13:00 is a minute too early
      ['tiktok', '2026-06-01T17:20:00.000Z'], // 13:20 local
    ]);
  });

  it('allows a slot exactly at notBefore', () => {
    const slots = allocateSlots(plan({ targets: targets(1, ['instagram']), notBefore: local(JUNE_1, 13, 0, NY) }));
    expect(iso(slots)).toEqual(['2026-06-01T17:00:00.000Z']);
  });
});

describe('allocateSlots: spacing', () => {
  it('keeps 4 hours from existing posts of the same platform', () => {
    const existing = [{ platform: 'instagram' as Platform, at: local(JUNE_1, 10, 0, NY) }];
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing })))).toEqual(['2026-06-01T21:00:00.000Z']);
  });

  it('counts the gap both ways and accepts exactly 4 hours', () => {
    const before = (h: number, m: number) => [{ platform: 'instagram' as Platform, at: local(JUNE_1, h, m, NY) }];
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing: before(5, 0) })))).toEqual(['2026-06-01T13:00:00.000Z']);
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing: before(5, 1) })))).toEqual(['2026-06-01T17:00:00.000Z']);
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing: before(12, 59) })))).toEqual(['2026-06-01T21:00:00.000Z']);
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing: before(13, 0) })))).toEqual(['2026-06-01T13:00:00.000Z']);
    expect(MIN_GAP_MS).toBe(4 * 3600_000);
  });

  it('ignores existing posts of other platforms', () => {
    const existing = [{ platform: 'twitter' as Platform, at: local(JUNE_1, 9, 0, NY) }];
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing })))).toEqual(['2026-06-01T13:00:00.000Z']);
  });

  it('gives nothing to items that do not fit in the days', () => {
    const slots = allocateSlots(plan({ targets: targets(9, ['instagram']), days: 2 }));
    expect(slots).toHaveLength(8);
    expect(slots.map((s) => s.contentId)).not.toContain('c8');
    expect(slots[7].at.toISOString()).toBe('2026-06-03T01:00:00.000Z'); // 21:00 local on the 2nd
    expect(allocateSlots(plan({ targets: targets(3, ['instagram']), days: 0 }))).toEqual([]);
  });

  it('counts days from notBefore\'s local date: late in the day only the later-staggered platforms fit', () => {
    const slots = allocateSlots(plan({ targets: targets(1, ['instagram', 'pinterest']), days: 1, notBefore: local(JUNE_1, 22, 0, NY) }));
    expect(slots.map((s) => [s.platformKey, s.at.toISOString()])).toEqual([['pinterest', '2026-06-02T02:20:00.000Z']]); // 22:20 local
  });
});

describe('allocateSlots: daily caps', () => {
  const burst = (platform: Platform, n: number, date: LocalDate, hour: number, zone = NY) =>
    Array.from({ length: n }, (_, i) => ({ platform, at: local(date, hour, i, zone) }));

  it('skips a local day that already holds 12 Pinterest posts', () => {
    expect(iso(allocateSlots(plan({ targets: targets(1, ['pinterest']), existing: burst('pinterest', 12, JUNE_1, 0) })))).toEqual(['2026-06-02T14:20:00.000Z']);
    expect(iso(allocateSlots(plan({ targets: targets(1, ['pinterest']), existing: burst('pinterest', 11, JUNE_1, 0) })))).toEqual(['2026-06-01T14:20:00.000Z']);
  });

  it('skips a local day that already holds 6 YouTube posts', () => {
    expect(iso(allocateSlots(plan({ targets: targets(1, ['youtube']), existing: burst('youtube', 6, JUNE_1, 0) })))).toEqual(['2026-06-02T14:00:00.000Z']);
    expect(iso(allocateSlots(plan({ targets: targets(1, ['youtube']), existing: burst('youtube', 5, JUNE_1, 0) })))).toEqual(['2026-06-01T14:00:00.000Z']);
  });

  it('does not cap the other platforms per day', () => {
    expect(iso(allocateSlots(plan({ targets: targets(1, ['instagram']), existing: burst('instagram', 30, JUNE_1, 0) })))).toEqual(['2026-06-01T13:00:00.000Z']);
  });

  it('counts new slots together with existing ones', () => {
    const pins = allocateSlots(plan({ targets: targets(4, ['pinterest']), existing: burst('pinterest', 10, JUNE_1, 0) }));
    expect(iso(pins)).toEqual(['2026-06-01T14:20:00.000Z', '2026-06-01T18:20:00.000Z', '2026-06-02T14:20:00.000Z', '2026-06-02T18:20:00.000Z']);
    const videos = allocateSlots(plan({ targets: targets(3, ['youtube']), existing: burst('youtube', 4, JUNE_1, 0) }));
    expect(iso(videos)).toEqual(['2026-06-01T14:00:00.000Z', '2026-06-01T18:00:00.000Z', '2026-06-02T14:00:00.000Z']);
  });

  it('counts by the local day, not the UTC day', () => {
    // 00:00-00:11 IST on 1 June is 18:30-18:41Z on 31 May.
    const kolkata = plan({ targets: targets(1, ['pinterest']), timezone: KOLKATA, notBefore: local(JUNE_1, 0, 0, KOLKATA), existing: burst('pinterest', 12, JUNE_1, 0, KOLKATA) });
    expect(iso(allocateSlots(kolkata))).toEqual(['2026-06-02T04:50:00.000Z']); // 10:20 IST on the 2nd
    // 23:00-23:11 New York time on 31 May is already 1 June in UTC: it must not fill 1 June.
    const ny = plan({ targets: targets(1, ['pinterest']), existing: burst('pinterest', 12, { year: 2026, month: 5, day: 31 }, 23) });
    expect(iso(allocateSlots(ny))).toEqual(['2026-06-01T14:20:00.000Z']);
  });
});

describe('allocateSlots: a big plan across a DST change', () => {
  it('keeps every rule over 14 days, 60 items on all five platforms, with busy existing days', () => {
    const start: LocalDate = { year: 2026, month: 3, day: 1 };
    const existing: Array<{ platform: Platform; at: Date }> = [];
    for (let d = 0; d <= 14; d++) {
      const date = localParts(zonedInstant(start, d * 1440, NY), NY);
      for (let i = 0; i < 10; i++) existing.push({ platform: 'pinterest', at: local(date, 0, i, NY) });
      for (let i = 0; i < 5; i++) existing.push({ platform: 'youtube', at: local(date, 0, 30 + i, NY) });
    }
    const notBefore = local(start, 0, 0, NY);
    const slots = allocateSlots({ targets: targets(60, ALL), existing, notBefore, days: 14, timezone: NY });

    const byPlatform = (p: Platform) => slots.filter((s) => s.platformKey === p);
    // Instagram, TikTok, Twitter: 4 a day. Pinterest: 10 existing + 2 (22:20 is too close to the
    // next day's 00:00 posts). YouTube: 5 existing + 1.
    expect(ALL.map((p) => [p, byPlatform(p).length])).toEqual([['instagram', 56], ['tiktok', 56], ['twitter', 56], ['youtube', 14], ['pinterest', 28]]);

    expectGoodLocalTimes(slots, NY);
    const lastDay = dateKey(localParts(zonedInstant(start, 13 * 1440, NY), NY));
    expect(lastDay).toBe('2026-03-14');
    for (const s of slots) {
      expect(s.at.getTime()).toBeGreaterThanOrEqual(notBefore.getTime());
      expect(dateKey(localParts(s.at, NY)) <= lastDay).toBe(true);
    }

    for (const p of ALL) {
      const times = [...byPlatform(p).map((s) => s.at.getTime()), ...existing.filter((e) => e.platform === p).map((e) => e.at.getTime())].sort((a, b) => a - b);
      const newTimes = byPlatform(p).map((s) => s.at.getTime());
      for (const t of newTimes) {
        const others = times.filter((o) => o !== t);
        expect(Math.min(...others.map((o) => Math.abs(o - t)))).toBeGreaterThanOrEqual(MIN_GAP_MS);
      }
      const perDay = new Map<string, number>();
      for (const t of times) {
        const key = dateKey(localParts(new Date(t), NY));
        perDay.set(key, (perDay.get(key) ?? 0) + 1);
      }
      const cap = p === 'youtube' ? 6 : p === 'pinterest' ? 12 : Infinity;
      expect(Math.max(...perDay.values())).toBeLessThanOrEqual(cap);
    }

    // One item's platforms never share an instant.
    const byItem = new Map<string, number[]>();
    for (const s of slots) byItem.set(s.contentId, [...(byItem.get(s.contentId) ?? []), s.at.getTime()]);
    for (const times of byItem.values()) expect(new Set(times).size).toBe(times.length);

    // Earlier items get earlier slots on a platform.
    for (const p of ALL) {
      const list = byPlatform(p).map((s) => s.at.getTime());
      expect(list).toEqual([...list].sort((a, b) => a - b));
    }
    expect(byPlatform('instagram').map((s) => s.contentId).slice(-1)).toEqual(['c55']);
    expect(byPlatform('youtube').map((s) => s.contentId).slice(-1)).toEqual(['c13']);
  });

  it('keeps 9/13/17/21 local on the New York spring-forward (2026-03-08)', () => {
    const start: LocalDate = { year: 2026, month: 3, day: 7 };
    const slots = allocateSlots({ targets: targets(12, ALL), existing: [], notBefore: local(start, 0, 0, NY), days: 3, timezone: NY });
    expect(slots).toHaveLength(60);
    expectGoodLocalTimes(slots, NY);
    const instagram = slots.filter((s) => s.platformKey === 'instagram');
    expect(iso(instagram).slice(3, 6)).toEqual(['2026-03-08T02:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-08T17:00:00.000Z']);
    expect(instagram.map((s) => dateKey(localParts(s.at, NY)))).toEqual([
      '2026-03-07', '2026-03-07', '2026-03-07', '2026-03-07', '2026-03-08', '2026-03-08', '2026-03-08', '2026-03-08', '2026-03-09', '2026-03-09', '2026-03-09', '2026-03-09',
    ]);
  });

  it('keeps 9/13/17/21 local on the New York fall-back (2026-11-01)', () => {
    const start: LocalDate = { year: 2026, month: 10, day: 31 };
    const slots = allocateSlots({ targets: targets(12, ALL), existing: [], notBefore: local(start, 0, 0, NY), days: 3, timezone: NY });
    expect(slots).toHaveLength(60);
    expectGoodLocalTimes(slots, NY);
    const instagram = slots.filter((s) => s.platformKey === 'instagram');
    expect(iso(instagram).slice(3, 6)).toEqual(['2026-11-01T01:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-01T18:00:00.000Z']);
  });

  it('keeps good local hours on the day before a spring-forward far east of UTC (Sydney, Auckland)', () => {
    const sydney = allocateSlots({ targets: targets(12, ALL), existing: [], notBefore: local({ year: 2026, month: 10, day: 2 }, 0, 0, 'Australia/Sydney'), days: 3, timezone: 'Australia/Sydney' });
    expectGoodLocalTimes(sydney, 'Australia/Sydney');
    expect(sydney).toHaveLength(60);
    const auckland = allocateSlots({ targets: targets(12, ALL), existing: [], notBefore: local({ year: 2026, month: 9, day: 25 }, 0, 0, 'Pacific/Auckland'), days: 3, timezone: 'Pacific/Auckland' });
    expectGoodLocalTimes(auckland, 'Pacific/Auckland');
    expect(auckland).toHaveLength(60);
  });
});

describe('hours from a posting history', () => {
  const peakAt = (hour: number, weekday?: number): HourScore[] =>
    Array.from({ length: 24 }, (_, h) => ({ weekday: weekday ?? 1, hour: h, score: h === hour ? 10 : 1 }));

  it('keeps the defaults below 10 measured posts, or with no scores', () => {
    expect(hoursFromHistory(null)).toBeNull();
    expect(hoursFromHistory({ measuredPosts: 9, hours: peakAt(19) })).toBeNull();
    expect(hoursFromHistory({ measuredPosts: 10, hours: [] })).toBeNull();
  });

  it("offers a weekday's best hours first, filled up with the week's best", () => {
    const hours = hoursFromHistory({ measuredPosts: 10, hours: [...peakAt(19, 1), { weekday: 3, hour: 7, score: 50 }] })!;
    expect(hours(1)[0]).toBe(19 * 60);
    expect(hours(3).slice(0, 2)).toEqual([7 * 60, 19 * 60]);
    // A weekday without posts takes the week's best.
    expect(hours(5)[0]).toBe(7 * 60);
    expect(hours(1)).toHaveLength(4);
  });

  it("places an item at the platform's best hour, and other platforms at the defaults", () => {
    const best = hoursFromHistory({ measuredPosts: 12, hours: [0, 1, 2, 3, 4, 5, 6].flatMap((d) => peakAt(19, d)) })!;
    const slots = allocateSlots(plan({ targets: targets(1, ['instagram', 'pinterest']), hours: { instagram: best } }));
    const at = (p: Platform) => hhmm(localParts(slots.find((s) => s.platformKey === p)!.at, NY).hour * 60 + localParts(slots.find((s) => s.platformKey === p)!.at, NY).minute);
    expect(at('instagram')).toBe('19:00');
    expect(at('pinterest')).toBe(hhmm(GOOD_MINUTES[0] + STAGGER.pinterest));
  });
});

describe('allocateSlots: planned days', () => {
  const JUNE_4: LocalDate = { year: 2026, month: 6, day: 4 };
  const onDay = (contentId: string, day: LocalDate | null, platforms: Platform[] = ['instagram']): SlotTarget => ({
    contentId, platforms: platforms.map((p) => ({ name: p, platform: p })), day,
  });

  it("posts an item planned for a day on that day, at the day's best free hour", () => {
    const slots = allocateSlots(plan({ targets: [onDay('c0', JUNE_4), onDay('c1', JUNE_4), onDay('c2', { year: 2026, month: 6, day: 6 })] }));
    expect(slots.map((s) => [s.contentId, dateKey(localParts(s.at, NY))])).toEqual([['c0', '2026-06-04'], ['c1', '2026-06-04'], ['c2', '2026-06-06']]);
    expect(iso(slots).slice(0, 2)).toEqual(['2026-06-04T13:00:00.000Z', '2026-06-04T17:00:00.000Z']);
  });

  it('lets planned items choose before unplanned ones, which keep the earliest free slots', () => {
    const slots = allocateSlots(plan({ targets: [onDay('free', null), onDay('planned', JUNE_1)] }));
    expect(slots.map((s) => [s.contentId, s.at.toISOString()])).toEqual([['planned', '2026-06-01T13:00:00.000Z'], ['free', '2026-06-01T17:00:00.000Z']]);
  });

  it('leaves an item unplaced when its day is past the window or full, and places a late one like an unplanned one', () => {
    const late = onDay('late', { year: 2026, month: 5, day: 20 });
    const beyond = onDay('beyond', { year: 2026, month: 6, day: 9 });
    const full = Array.from({ length: 5 }, (_, i) => onDay(`d${i}`, JUNE_4));
    const slots = allocateSlots(plan({ targets: [late, beyond, ...full] }));
    const ids = slots.map((s) => s.contentId);
    expect(ids).not.toContain('beyond');
    expect(ids.filter((id) => id.startsWith('d'))).toHaveLength(4);
    expect(slots.find((s) => s.contentId === 'late')!.at.toISOString()).toBe('2026-06-01T13:00:00.000Z');
  });
});
