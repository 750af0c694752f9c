export { BillingModule } from './billing.module.js';
export { BillingFacade, type CreditMovement } from './application/billing.facade.js';
export type { CreditChange, LedgerEntry } from './domain/credits.js';
export { ledgerEntryBody, LedgerEntryView } from './api/dto/ledger-entry.view.js';
export { BILLING_ERRORS } from './errors.js';
