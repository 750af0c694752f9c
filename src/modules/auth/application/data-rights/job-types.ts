import { jobTypes } from '../../../../platform/queue/index.js';

export const BUILD_ACCOUNT_EXPORT_JOB = 'build_account_export';

export const AUTH_JOB_TYPES = jobTypes(BUILD_ACCOUNT_EXPORT_JOB);

/** Builds the archive of one export (`exportId`, in the job's workspace). */
export interface BuildAccountExportJobPayload {
  exportId: string;
}

declare module '../../../../platform/queue/job-types.js' {
  interface JobPayloads {
    build_account_export: BuildAccountExportJobPayload;
  }
}
