import { jobTypes } from '../../../platform/queue/index.js';
import { LORA_JOB } from '../domain/lora.js';

export const LORA_JOB_TYPES = jobTypes(LORA_JOB);

/** The LoRA the job trains, and what it was charged (a failure refunds it). */
export interface TrainLoraJobPayload {
  lora_id: string;
  credits: number;
}

declare module '../../../platform/queue/job-types.js' {
  interface JobPayloads {
    train_lora: TrainLoraJobPayload;
  }
}
