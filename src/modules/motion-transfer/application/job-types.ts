import { jobTypes } from '../../../platform/queue/index.js';
import { MOTION_TRANSFER_JOB } from '../domain/motion-transfer.js';

export const MOTION_TRANSFER_JOB_TYPES = jobTypes(MOTION_TRANSFER_JOB);

/** The transfer the job makes, and what it was charged (a failure refunds it). */
export interface MotionTransferJobPayload {
  motion_transfer_id: string;
  credits: number;
}

declare module '../../../platform/queue/job-types.js' {
  interface JobPayloads {
    motion_transfer: MotionTransferJobPayload;
  }
}
