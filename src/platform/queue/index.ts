export * from './job.types.js';
export * from './job-handler.decorator.js';
export { toJobBody, type JobBody } from './job-body.js';
export { JobsService } from './jobs.service.js';
export { QueueModule, createQueueTransport } from './queue.module.js';
export { QUEUE_ROLE, consumesQueues } from './job-consumer.js';
export { JobTransport, NO_DEADLINE, type CloseReport, type DroppedMessage } from './transport/job-transport.js';
export * from './job-types.js';
export { bullQueueOf } from './transport/bull-transport.js';
