/** What other contexts may use from the content context. */
export { ContentModule } from './content.module.js';
export { ContentFacade } from './application/content.facade.js';
export type { CalendarPost, CalendarPostsSource } from './application/calendar-posts.js';
export type { ContentItem, ContentStatus, ContentType, StoredMedia, Variant } from './domain/content-item.js';
export { canTransition } from './domain/content-status.js';
export { toContentItemBody } from './api/dto/content-item.body.js';
