import { SetMetadata } from '@nestjs/common';

export const JOB_HANDLER_KEY = 'ps:job-handler';
export const JOB_FAILURE_HOOK_KEY = 'ps:job-failure-hook';

/**
 * Marks a provider method as the handler of one job type: `(ctx: JobContext) => Promise<result | void>`.
 * The registry finds every handler at boot and refuses to start when a job type has two.
 */
export const JobHandler = (jobType: string): MethodDecorator => SetMetadata(JOB_HANDLER_KEY, jobType);

/**
 * Marks a provider method as the failure hook of one job type: `(tx: Tx, job: JobRecord) => Promise<void>`,
 * run inside the transaction that marks the job failed (e.g. to refund credits). At most one per
 * job type, and only for a type that has a handler.
 */
export const OnJobFailed = (jobType: string): MethodDecorator => SetMetadata(JOB_FAILURE_HOOK_KEY, jobType);
