/** What other contexts may use from the publishing context. */
export { PublishingModule } from './publishing.module.js';
export { PUBLISHING_ERRORS } from './errors.js';
export { PostingHistories, PostingHistorySource } from './application/posting-history.js';
export { HISTORY_MIN_POSTS, type HourScore, type PostingHistory } from './domain/slots.js';
export { PublishingFacade } from './application/publishing.facade.js';
export type { AccountMetrics, ConnectionRef, PostMetrics, PublishedPost, RemotePostMetrics } from './application/ports/account-metrics.js';
export type { ReplyToSend } from './application/publishing.facade.js';
export {
  PublishFailure,
  PUBLISH_ERROR_CODES,
  type CommentsQuery,
  type FailurePoint,
  type InboundComment,
  type PublishErrorCode,
  type ReplyRequest,
  type ReplyResult,
} from './application/ports/platform-client.js';
export {
  INSTAGRAM_SIGNATURE_HEADER,
  instagramChallenge,
  verifyInstagramSignature,
  verifyXSignature,
  X_SIGNATURE_HEADER,
  xCrcResponse,
} from './infrastructure/platforms/webhook-signatures.js';
