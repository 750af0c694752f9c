export { WebhooksModule } from './webhooks.module.js';
export { WEBHOOKS_ERRORS } from './errors.js';
