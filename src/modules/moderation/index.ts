/** What other contexts may use from the moderation context. */
export { ModerationModule } from './moderation.module.js';
