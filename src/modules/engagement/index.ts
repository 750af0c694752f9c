/** What other contexts may use from the engagement context. */
export { EngagementModule } from './engagement.module.js';
export { PLATFORM_WEBHOOK_PATHS } from './api/platform-webhooks.controller.js';
export { ConversationMessageBody } from './api/dto/engagement.body.js';
