/** What other contexts may use from the monetization context. */
export { MonetizationModule } from './monetization.module.js';
export { MonetizationFacade, type CharacterEarningsBrief, type EarningsOverview } from './application/monetization.facade.js';
export { MONETIZATION_ERRORS } from './errors.js';
