import { jobTypes } from '../../../../../platform/queue/index.js';

export const VERIFY_CUSTOM_DOMAIN_JOB = 'verify_custom_domain';

export const BRANDING_JOB_TYPES = jobTypes(VERIFY_CUSTOM_DOMAIN_JOB);

/** One scheduled DNS check of a workspace's claim; `token` names the claim, so a replaced claim is left alone. */
export interface VerifyCustomDomainJobPayload {
  token: string;
  trigger: 'scheduled';
}

declare module '../../../../../platform/queue/job-types.js' {
  interface JobPayloads {
    verify_custom_domain: VerifyCustomDomainJobPayload;
  }
}
