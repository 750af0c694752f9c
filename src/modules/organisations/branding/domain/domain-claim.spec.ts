import { afterCheck, backoffMs, lose, newClaim, type CheckPolicy, type DomainClaim } from './domain-claim.js';

const MIN = 60_000;
const policy: CheckPolicy = { pendingCheckMs: 5 * MIN, verifiedCheckMs: 12 * 60 * MIN, pendingTtlMs: 72 * 60 * MIN, missesBeforeFailed: 3 };
const t0 = new Date('2025-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const pending = (): DomainClaim => newClaim('ws_1', 'studio.acme.test', 'studio.acme.test', 'tok', t0, policy);

describe('a domain claim', () => {
  it('starts pending, first checked one pending interval later', () => {
    const c = pending();
    expect(c).toMatchObject({ status: 'pending', failure: null, checks: 0, misses: 0, verifiedAt: null, nextCheckAt: at(5 * MIN) });
  });

  it('becomes verified when the proof is found, then is re-checked at the verified interval', () => {
    const c = afterCheck(pending(), 'found', at(MIN), policy);
    expect(c).toMatchObject({ status: 'verified', verifiedAt: at(MIN), lastOutcome: 'found', lastCheckedAt: at(MIN), nextCheckAt: at(MIN + policy.verifiedCheckMs) });
    expect(afterCheck(c, 'found', at(2 * MIN), policy).verifiedAt).toEqual(at(MIN));
  });

  it('stays pending without the proof, checked less and less often, and fails when it never comes in time', () => {
    let c = pending();
    const gaps: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const now = at(i * MIN);
      c = afterCheck(c, i % 2 ? 'absent' : 'mismatch', now, policy);
      expect(c.status).toBe('pending');
      gaps.push(c.nextCheckAt!.getTime() - now.getTime());
    }
    expect(gaps).toEqual([5 * MIN, 10 * MIN, 20 * MIN, 40 * MIN]);
    const late = afterCheck(c, 'absent', at(policy.pendingTtlMs), policy);
    expect(late).toMatchObject({ status: 'failed', failure: 'not_verified_in_time', nextCheckAt: null });
  });

  it('caps the pending gap at the verified interval', () => {
    expect(backoffMs(50, policy)).toBe(policy.verifiedCheckMs);
  });

  it('fails a verified domain only after N consecutive checks without the record; one sighting resets the count', () => {
    let c = afterCheck(pending(), 'found', at(0), policy);
    c = afterCheck(c, 'absent', at(1), policy);
    c = afterCheck(c, 'mismatch', at(2), policy);
    expect(c).toMatchObject({ status: 'verified', misses: 2 });
    c = afterCheck(c, 'found', at(3), policy);
    expect(c).toMatchObject({ status: 'verified', misses: 0 });
    for (let i = 0; i < 2; i += 1) c = afterCheck(c, 'absent', at(4 + i), policy);
    expect(c.status).toBe('verified');
    c = afterCheck(c, 'absent', at(10), policy);
    expect(c).toMatchObject({ status: 'failed', failure: 'record_missing', misses: 3, verifiedAt: null, nextCheckAt: null });
  });

  it('does not count a resolver outage as a missing record', () => {
    let c = afterCheck(pending(), 'found', at(0), policy);
    for (let i = 0; i < 10; i += 1) c = afterCheck(c, 'unavailable', at(i + 1), policy);
    expect(c).toMatchObject({ status: 'verified', misses: 0, lastOutcome: 'unavailable' });
    const p = afterCheck(pending(), 'unavailable', at(policy.pendingTtlMs + 1), policy);
    expect(p.status).toBe('pending');
  });

  it('comes back from failed when its owner publishes the proof and asks again; stays failed otherwise', () => {
    const failed = lose(pending(), 'not_verified_in_time');
    expect(afterCheck(failed, 'absent', at(MIN), policy)).toMatchObject({ status: 'failed', failure: 'not_verified_in_time', nextCheckAt: null });
    expect(afterCheck(failed, 'found', at(MIN), policy)).toMatchObject({ status: 'verified', failure: null, verifiedAt: at(MIN) });
  });
});
