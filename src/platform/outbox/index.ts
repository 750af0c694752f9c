export { Outbox } from './outbox.js';
export { OutboxModule } from './outbox.module.js';
export { OutboxSubscribers, PermanentDeliveryFailure, type DeliveryAttempt, type OutboxSubscriber } from './subscribers.js';
export { retryDelayMs, type RetryPolicy } from './backoff.js';
export { OutboxEventBodies, unlessGone, type EventBody, type EventBodyRenderer } from './event-bodies.js';
