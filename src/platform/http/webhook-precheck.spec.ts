import { describe, expect, it } from '@jest/globals';
import { stripeSignatureRefusal, webhookHeadersRefusal } from './webhook-precheck.js';

const NOW = 1_800_000_000_000;
const fresh = String(NOW / 1000);
const ok = { 'webhook-id': 'msg_2a', 'webhook-timestamp': fresh, 'webhook-signature': 'v1,c2lnbmF0dXJl' };

describe('webhookHeadersRefusal (before the body is read)', () => {
  it('lets a delivery with all three headers and a fresh timestamp through to the signature check', () => {
    expect(webhookHeadersRefusal(ok, NOW)).toBeNull();
    expect(webhookHeadersRefusal({ ...ok, 'webhook-timestamp': String(NOW / 1000 - 299), 'webhook-signature': 'v1a,x v1,c2ln' }, NOW)).toBeNull();
  });

  it.each([
    ['no webhook-id', { ...ok, 'webhook-id': undefined }, 'missing webhook headers'],
    ['no timestamp', { ...ok, 'webhook-timestamp': undefined }, 'missing webhook headers'],
    ['no signature', { ...ok, 'webhook-signature': '' }, 'missing webhook headers'],
    ['a repeated header', { ...ok, 'webhook-id': ['a', 'b'] }, 'missing webhook headers'],
    ['a delivery id past 256 characters', { ...ok, 'webhook-id': 'x'.repeat(257) }, 'malformed webhook-id'],
    ['a timestamp that is not unix seconds', { ...ok, 'webhook-timestamp': '2027-01-15T00:00:00Z' }, 'unreadable timestamp'],
    ['a timestamp an hour old', { ...ok, 'webhook-timestamp': String(NOW / 1000 - 3600) }, 'timestamp outside the tolerance'],
    ['a timestamp ten minutes ahead', { ...ok, 'webhook-timestamp': String(NOW / 1000 + 600) }, 'timestamp outside the tolerance'],
    ['no v1 signature', { ...ok, 'webhook-signature': 'v2,abc' }, 'no v1 signature'],
  ])('refuses %s', (_what, headers, reason) => {
    expect(webhookHeadersRefusal(headers as Record<string, string | string[] | undefined>, NOW)).toBe(reason);
  });
});

describe('stripeSignatureRefusal (before the body is read)', () => {
  const sig = 'a'.repeat(64);
  const header = (t: string, rest = `v1=${sig}`) => ({ 'stripe-signature': `t=${t},${rest}` });

  it('lets a fresh header with a v1 signature through to the SDK check', () => {
    expect(stripeSignatureRefusal(header(fresh), NOW)).toBeNull();
    expect(stripeSignatureRefusal(header(fresh, `v0=${'b'.repeat(64)},v1=${sig}`), NOW)).toBeNull();
  });

  it.each([
    ['no header', {}, 'missing or malformed Stripe-Signature'],
    ['no timestamp', { 'stripe-signature': `v1=${sig}` }, 'unreadable timestamp'],
    ['a stale timestamp', header(String(NOW / 1000 - 301)), 'timestamp outside the tolerance'],
    ['no v1', header(fresh, `v0=${sig}`), 'no v1 signature'],
    ['a v1 that is not a SHA-256 hex digest', header(fresh, 'v1=zz'), 'no v1 signature'],
  ])('refuses %s', (_what, headers, reason) => {
    expect(stripeSignatureRefusal(headers as Record<string, string>, NOW)).toBe(reason);
  });
});
