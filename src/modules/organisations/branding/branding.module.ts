import { Global, Module } from '@nestjs/common';
import { BrandingService } from './application/branding.service.js';
import { OrganizationBrandingController } from './api/organization-branding.controller.js';
import { PublicBrandingController } from './api/public-branding.controller.js';
import { BrandingRepository } from './infrastructure/branding.repository.js';
import { DomainClaimsService } from './application/domain-claims.service.js';
import { DomainCheckScheduler } from './application/jobs/domain-check-scheduler.js';
import { VerifyCustomDomainJob } from './application/jobs/verify-custom-domain.job.js';
import { TxtResolver } from './application/ports/txt-resolver.js';
import { DnsTxtResolver } from './infrastructure/dns-txt-resolver.js';
import { DomainClaimsRepository } from './infrastructure/domain-claims.repository.js';
import { BrandingDataContributor } from './infrastructure/branding-data.contributor.js';

/**
 * White-label branding (contract §14). Global, as the audit log is: every context that renders a
 * page (the OAuth return today) shows the workspace's branding on it. Custom domains are served
 * only once proven through DNS (the TxtResolver port), checked on demand and by a periodic job.
 */
@Global()
@Module({
  controllers: [OrganizationBrandingController, PublicBrandingController],
  providers: [BrandingDataContributor,
    BrandingRepository, BrandingService, DomainClaimsRepository, DomainClaimsService, VerifyCustomDomainJob, DomainCheckScheduler,
    { provide: TxtResolver, useClass: DnsTxtResolver },
  ],
  exports: [BrandingService],
})
export class BrandingModule {}
