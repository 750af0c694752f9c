export * from './job.types.js';
export * from './job-handler.decorator.js';
export { toJobBody, type JobBody } from './job-body.js';
export { JobsService } from './jobs.service.js';
export { QueueModule } from './queue.module.js';
