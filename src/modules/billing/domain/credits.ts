
/** One append-only line of a workspace's credit history. `amount` is signed: debits are negative. */
export interface LedgerEntry {
  id: string;
  workspaceId: string;
  amount: number;
  balanceAfter: number;
  reason: string;
  refType: string | null;
  refId: string | null;
  createdAt: Date;
}

/** A movement of credits asked for by a context; `amount` is always positive, the verb gives the sign. */
export interface CreditChange {
  workspaceId: string;
  amount: number;
  reason: string;
  refType?: string;
  refId?: string;
}

/** Credits are whole, positive amounts; anything else is a programming error in the caller. */
export function assertCreditAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new Error(`A credit amount must be a positive whole number, got ${amount}.`);
  }
}

export { insufficientCredits } from '../../../core/index.js';
