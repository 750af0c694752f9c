import { jobTypes } from '../../../platform/queue/index.js';
import { TALKING_HEAD_JOB } from '../domain/talking-head.js';

export const TALKING_HEAD_JOB_TYPES = jobTypes(TALKING_HEAD_JOB);

/** The generation the job makes, and what it was charged (a failure refunds it). */
export interface TalkingHeadJobPayload {
  generation_id: string;
  credits: number;
}

declare module '../../../platform/queue/job-types.js' {
  interface JobPayloads {
    talking_head: TalkingHeadJobPayload;
  }
}
