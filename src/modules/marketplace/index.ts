/** What other contexts may use from the marketplace context. */
export { MarketplaceModule } from './marketplace.module.js';
