/** What other contexts may use from notifications: the module (mail is reached through the outbox, not called). */
export { NotificationsModule } from './notifications.module.js';
export type { NotificationsSettings } from './notifications.settings.js';
