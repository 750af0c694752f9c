import { describe, expect, it } from '@jest/globals';
import { purchaseRefusal, type PurchaseFacts } from './purchase-rules.js';

const ok: PurchaseFacts = {
  listing: { id: 'mkt_1', sellerWorkspaceId: 'ws_seller', status: 'active', priceCredits: 100 },
  buyerWorkspaceId: 'ws_buyer',
  alreadyPurchased: false,
  room: { plan: 'starter', limit: 3, count: 2 },
  balance: 100,
};

const codeOf = (f: PurchaseFacts) => purchaseRefusal(f)?.code ?? null;

describe('purchaseRefusal', () => {
  it('lets a purchase through when every check passes, with the balance exactly covering the price', () => {
    expect(purchaseRefusal(ok)).toBeNull();
  });

  it('answers each failure with its code', () => {
    expect(codeOf({ ...ok, listing: null })).toBe('not_found');
    expect(codeOf({ ...ok, buyerWorkspaceId: 'ws_seller' })).toBe('cannot_purchase_own_listing');
    for (const status of ['draft', 'paused', 'sold', 'removed'] as const) {
      expect(codeOf({ ...ok, listing: { ...ok.listing!, status } })).toBe('listing_unavailable');
    }
    expect(codeOf({ ...ok, alreadyPurchased: true })).toBe('already_purchased');
    expect(codeOf({ ...ok, room: { plan: 'starter', limit: 3, count: 3 } })).toBe('character_limit_reached');
    expect(codeOf({ ...ok, balance: 99 })).toBe('insufficient_credits');
  });

  it('checks in the contract order: 404, own, not active, already bought, limit, credits', () => {
    const allWrong: PurchaseFacts = {
      listing: { ...ok.listing!, status: 'paused' },
      buyerWorkspaceId: 'ws_seller',
      alreadyPurchased: true,
      room: { plan: 'starter', limit: 3, count: 3 },
      balance: 0,
    };
    expect(codeOf({ ...allWrong, listing: null })).toBe('not_found');
    expect(codeOf(allWrong)).toBe('cannot_purchase_own_listing');
    const foreign = { ...allWrong, buyerWorkspaceId: 'ws_buyer' };
    expect(codeOf(foreign)).toBe('listing_unavailable');
    const active = { ...foreign, listing: { ...ok.listing! } };
    expect(codeOf(active)).toBe('already_purchased');
    expect(codeOf({ ...active, alreadyPurchased: false })).toBe('character_limit_reached');
    expect(codeOf({ ...active, alreadyPurchased: false, room: ok.room })).toBe('insufficient_credits');
  });

  it('gives the limit and the credits their details', () => {
    expect(purchaseRefusal({ ...ok, balance: 40 })?.details).toMatchObject({ required: 100, balance: 40, shortfall: 60 });
    expect(purchaseRefusal({ ...ok, room: { plan: 'pro', limit: 15, count: 15 } })?.details).toMatchObject({ plan: 'pro', limit: 15, count: 15, upgrade_plan: 'agency' });
  });
});
