import type { LedgerEntry } from '../../domain/credits.js';

/** The wire shape of a ledger entry (contract §3). */
export function ledgerEntryBody(e: LedgerEntry) {
  return {
    id: e.id,
    amount: e.amount,
    balance_after: e.balanceAfter,
    reason: e.reason,
    ref_type: e.refType,
    ref_id: e.refId,
    created_at: e.createdAt.toISOString(),
  };
}
