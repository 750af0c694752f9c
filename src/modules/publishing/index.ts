/** What other contexts may use from the publishing context. */
export { PublishingModule } from './publishing.module.js';
export { PUBLISHING_ERRORS } from './errors.js';
export { PublishingFacade } from './application/publishing.facade.js';
export type { AccountMetrics, ConnectionRef, PostMetrics, PublishedPost, RemotePostMetrics } from './application/ports/account-metrics.js';
