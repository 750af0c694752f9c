/** What other contexts may use from the marketplace context. */
export { MarketplaceModule } from './marketplace.module.js';
export { MARKETPLACE_ERRORS } from './errors.js';
