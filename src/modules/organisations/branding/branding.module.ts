import { Global, Module } from '@nestjs/common';
import { BrandingService } from './application/branding.service.js';
import { OrganizationBrandingController } from './api/organization-branding.controller.js';
import { PublicBrandingController } from './api/public-branding.controller.js';
import { BrandingRepository } from './infrastructure/branding.repository.js';

/**
 * White-label branding (contract §14). Global, as the audit log is: every context that renders a
 * page (the OAuth return today) shows the workspace's branding on it.
 */
@Global()
@Module({
  controllers: [OrganizationBrandingController, PublicBrandingController],
  providers: [BrandingRepository, BrandingService],
  exports: [BrandingService],
})
export class BrandingModule {}
