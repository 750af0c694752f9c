/** What other contexts may use from the content context. */
export { ContentModule } from './content.module.js';
export { ContentFacade, type FinishedVideo } from './application/content.facade.js';
export type { CalendarPost, CalendarPostsSource } from './application/calendar-posts.js';
export type { Ordered } from './application/content-generation.service.js';
export type { ItemView } from './application/content-views.js';
export type { ReviewChange, ReviewRecorder } from './application/item-reviews.js';
export { CONTENT_STATUSES } from './domain/content-item.js';
export type { ContentItem, ContentStatus, ContentType, ReviewStatus, StoredMedia, Variant } from './domain/content-item.js';
export { canTransition, nextStatus } from './domain/content-status.js';
export { ItemAndJobEnvelope, ItemEnvelope, toContentItemBody, toItemBody, toOrderedBody } from './api/dto/content-item.body.js';
export { CONTENT_ERRORS } from './errors.js';
export { CONTENT_JOB_TYPES } from './application/jobs/job-types.js';
