import type { Platform } from '../../../core/index.js';
import { jobTypes } from '../../../platform/queue/index.js';

export const SYNC_ANALYTICS_JOB = 'sync_analytics';

export const ANALYTICS_JOB_TYPES = jobTypes(SYNC_ANALYTICS_JOB);

/**
 * The connections one sync covers: one platform when the scheduler claimed it, every connection
 * of the workspace (`platforms` absent) when asked for on demand.
 */
export interface SyncAnalyticsJobPayload {
  platforms?: Platform[];
  trigger: 'scheduled' | 'on_demand';
}

declare module '../../../platform/queue/job-types.js' {
  interface JobPayloads {
    sync_analytics: SyncAnalyticsJobPayload;
  }
}
