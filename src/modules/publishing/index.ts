/** What other contexts may use from the publishing context. */
export { PublishingModule } from './publishing.module.js';
export { PUBLISHING_ERRORS } from './errors.js';
