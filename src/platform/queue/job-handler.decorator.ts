import { SetMetadata } from '@nestjs/common';
import type { JobType } from './job-types.js';
import type { JobFailureHookFn, JobHandlerFn } from './job.types.js';

export const JOB_HANDLER_KEY = 'ps:job-handler';
export const JOB_FAILURE_HOOK_KEY = 'ps:job-failure-hook';

/**
 * Marks a provider method as the handler of one job type: `(ctx: JobContext<type>) => Promise<result | void>`,
 * its payload typed by the type's declaration (a handler for another type's context does not compile).
 * The registry finds every handler at boot and refuses to start unless each job type has exactly one.
 */
export function JobHandler<T extends JobType>(jobType: T) {
  return (target: object, key: string | symbol, descriptor: { value?: JobHandlerFn<T> }): void => {
    SetMetadata(JOB_HANDLER_KEY, jobType)(target, key, descriptor as PropertyDescriptor);
  };
}

/**
 * Marks a provider method as the failure hook of one job type: `(tx: Tx, job: JobRecord) => Promise<void>`,
 * run inside the transaction that marks the job failed (e.g. to refund credits). At most one per
 * job type, and only for a type that has a handler.
 */
export function OnJobFailed<T extends JobType>(jobType: T) {
  return (target: object, key: string | symbol, descriptor: { value?: JobFailureHookFn<T> }): void => {
    SetMetadata(JOB_FAILURE_HOOK_KEY, jobType)(target, key, descriptor as PropertyDescriptor);
  };
}
