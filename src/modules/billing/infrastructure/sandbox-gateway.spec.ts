import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { InvalidEventSignature } from '../application/ports/payment-gateway.js';
import {
  addMonths, invoiceNumber, isSandboxId, prorationAmount, SANDBOX_PRICES, sandboxCustomerId, SandboxGateway, sandboxId, sandboxPrice, successRedirect,
} from './sandbox-gateway.js';

// The SQL is exercised end to end (test/e2e/billing-sandbox.e2e-spec.ts): unit specs have no database.
const gateway = () => new SandboxGateway({} as DataSource, { publicUrl: 'http://localhost:3000/' });
const at = (iso: string) => new Date(iso);

describe('sandbox prices', () => {
  it('are the fixed sandbox defaults, in US cents, with sandbox price ids', () => {
    expect(SANDBOX_PRICES.plans).toEqual({
      pro: { id: 'price_sandbox_pro', unitAmount: 2900, currency: 'usd', interval: 'month' },
      agency: { id: 'price_sandbox_agency', unitAmount: 9900, currency: 'usd', interval: 'month' },
    });
    expect(SANDBOX_PRICES.packs).toEqual({
      pack_100: { id: 'price_sandbox_pack_100', unitAmount: 900, currency: 'usd', interval: null },
      pack_250: { id: 'price_sandbox_pack_250', unitAmount: 2000, currency: 'usd', interval: null },
      pack_500: { id: 'price_sandbox_pack_500', unitAmount: 3500, currency: 'usd', interval: null },
      pack_1000: { id: 'price_sandbox_pack_1000', unitAmount: 6000, currency: 'usd', interval: null },
    });
  });

  it('are looked up by plan or pack', () => {
    expect(sandboxPrice('agency').unitAmount).toBe(9900);
    expect(sandboxPrice('pack_250').unitAmount).toBe(2000);
  });

  it('are what the gateway answers, in a copy a caller cannot change the table through', async () => {
    const gw = gateway();
    const prices = await gw.prices();
    expect(prices).toEqual(SANDBOX_PRICES);
    prices.plans.pro = { id: 'x', unitAmount: 1, currency: 'usd', interval: 'month' };
    expect((await gw.prices()).plans.pro.unitAmount).toBe(2900);
  });
});

describe('sandbox ids', () => {
  it('look like Stripe ids with a sandbox mark and 128 random bits', () => {
    for (const prefix of ['cs', 'sub', 'si', 'in', 'evt', 'bps'] as const) {
      const id = sandboxId(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_sbx_[0-9a-f]{32}$`));
      expect(isSandboxId(prefix, id)).toBe(true);
    }
    const many = new Set(Array.from({ length: 200 }, () => sandboxId('cs')));
    expect(many.size).toBe(200);
  });

  it('refuse what no sandbox id looks like', () => {
    const id = sandboxId('cs');
    expect(isSandboxId('bps', id)).toBe(false);
    expect(isSandboxId('cs', id.slice(0, -1))).toBe(false);
    expect(isSandboxId('cs', `${id}0`)).toBe(false);
    expect(isSandboxId('cs', id.toUpperCase())).toBe(false);
    expect(isSandboxId('cs', `${id}/../x`)).toBe(false);
    expect(isSandboxId('cs', 'cs_test_a1b2c3')).toBe(false);
  });

  it('give a workspace one customer id, the same on every call, and another workspace another', () => {
    const a = sandboxCustomerId('ws_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(a).toMatch(/^cus_sbx_[0-9a-f]{32}$/);
    expect(sandboxCustomerId('ws_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(a);
    expect(sandboxCustomerId('ws_01ARZ3NDEKTSV4RRFFQ69G5FAW')).not.toBe(a);
  });
});

describe('addMonths', () => {
  it('moves by calendar months in UTC, keeping the time of day', () => {
    expect(addMonths(at('2025-01-15T10:20:30.456Z'), 1)).toEqual(at('2025-02-15T10:20:30.456Z'));
    expect(addMonths(at('2025-12-05T00:00:00.000Z'), 1)).toEqual(at('2026-01-05T00:00:00.000Z'));
    expect(addMonths(at('2025-03-10T08:00:00.000Z'), 12)).toEqual(at('2026-03-10T08:00:00.000Z'));
    expect(addMonths(at('2025-03-10T08:00:00.000Z'), 0)).toEqual(at('2025-03-10T08:00:00.000Z'));
  });

  it('ends a period on the month\'s last day when the anchor\'s day is past it, and comes back to the anchor\'s day after', () => {
    const anchor = at('2025-01-31T12:00:00.000Z');
    expect(addMonths(anchor, 1)).toEqual(at('2025-02-28T12:00:00.000Z'));
    expect(addMonths(anchor, 2)).toEqual(at('2025-03-31T12:00:00.000Z'));
    expect(addMonths(anchor, 3)).toEqual(at('2025-04-30T12:00:00.000Z'));
    expect(addMonths(at('2024-01-31T12:00:00.000Z'), 1)).toEqual(at('2024-02-29T12:00:00.000Z'));
  });
});

describe('prorationAmount', () => {
  const period = { start: at('2025-04-01T00:00:00.000Z'), end: at('2025-05-01T00:00:00.000Z') };

  it('charges the difference of the monthly prices for the share of the period left', () => {
    expect(prorationAmount(2900, 9900, period, at('2025-04-16T00:00:00.000Z'))).toBe(3500);
    expect(prorationAmount(2900, 9900, period, period.start)).toBe(7000);
    expect(prorationAmount(2900, 9900, period, period.end)).toBe(0);
  });

  it('rounds to the cent', () => {
    // 10 days of 30 left: 7000 / 3 = 2333.33…
    expect(prorationAmount(2900, 9900, period, at('2025-04-21T00:00:00.000Z'))).toBe(2333);
    // 20 days of 30 left: 4666.66…
    expect(prorationAmount(2900, 9900, period, at('2025-04-11T00:00:00.000Z'))).toBe(4667);
  });

  it('never charges for time outside the period, a cheaper plan, or an empty period', () => {
    expect(prorationAmount(2900, 9900, period, at('2025-03-01T00:00:00.000Z'))).toBe(7000);
    expect(prorationAmount(2900, 9900, period, at('2025-06-01T00:00:00.000Z'))).toBe(0);
    expect(prorationAmount(9900, 2900, period, at('2025-04-16T00:00:00.000Z'))).toBe(0);
    expect(prorationAmount(2900, 9900, { start: period.end, end: period.end }, period.end)).toBe(0);
  });
});

describe('invoiceNumber', () => {
  it('numbers a customer\'s invoices SBX-0001 onwards', () => {
    expect(invoiceNumber(1)).toBe('SBX-0001');
    expect(invoiceNumber(42)).toBe('SBX-0042');
    expect(invoiceNumber(12345)).toBe('SBX-12345');
  });
});

describe('successRedirect', () => {
  it('adds the session id to the success URL', () => {
    expect(successRedirect('http://app.test/billing?done=1', 'cs_sbx_1')).toBe('http://app.test/billing?done=1&session_id=cs_sbx_1');
  });

  it('fills Stripe\'s {CHECKOUT_SESSION_ID} placeholder when the URL has one', () => {
    expect(successRedirect('http://app.test/billing?session_id={CHECKOUT_SESSION_ID}', 'cs_sbx_1')).toBe('http://app.test/billing?session_id=cs_sbx_1');
  });
});

describe('SandboxGateway', () => {
  it('is the sandbox, and its hosted pages are under the public URL', () => {
    const gw = gateway();
    expect(gw.mode).toBe('sandbox');
    expect(gw.pagesUrl()).toBe('http://localhost:3000/api/v1/billing/sandbox');
  });

  it('refuses every webhook: the sandbox sends none', () => {
    expect(() => gateway().parseEvent()).toThrow(InvalidEventSignature);
  });
});
