import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext } from '../../../../../platform/queue/index.js';
import { DomainClaimsService } from '../domain-claims.service.js';
import { VERIFY_CUSTOM_DOMAIN_JOB } from './job-types.js';

/**
 * verify_custom_domain: one DNS check of the claim the scheduler picked. Idempotent in effect: a
 * second run is one more check of the same record, and a claim replaced meanwhile is skipped.
 */
@Injectable()
export class VerifyCustomDomainJob {
  constructor(private readonly claims: DomainClaimsService) {}

  @JobHandler(VERIFY_CUSTOM_DOMAIN_JOB)
  async run(ctx: JobContext<'verify_custom_domain'>): Promise<Record<string, unknown>> {
    const claim = await this.claims.check(ctx.job.workspaceId, ctx.job.payload.token);
    if (!claim || claim.token !== ctx.job.payload.token) return { skipped: 'claim_replaced' };
    return { domain: claim.domain, status: claim.status, outcome: claim.lastOutcome, ...(claim.failure ? { failure: claim.failure } : {}) };
  }
}
