import { SetMetadata } from '@nestjs/common';

export const JOB_HANDLER_KEY = 'ps:job-handler';

/**
 * Marks a provider method as the handler of one job type. The registry finds every handler at
 * boot and refuses to start when a job type has two.
 */
export const JobHandler = (jobType: string): MethodDecorator => SetMetadata(JOB_HANDLER_KEY, jobType);
