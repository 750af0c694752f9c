/** What other contexts may use from branding: the service (read for pages, update in a transaction) and the page renderer. */
export { BrandingModule } from './branding.module.js';
export { BrandingService, asDomainTaken, type BrandingView, type PageBranding, type MailBranding } from './application/branding.service.js';
export { renderBrandedPage, escapeHtml, BRANDED_PAGE_CSP, type PageContent } from './application/branded-page.js';
export type { BrandingChanges } from './domain/branding.js';
export { BRANDING_ERRORS } from './errors.js';
export { BRANDING_JOB_TYPES } from './application/jobs/job-types.js';
export { UpdateBrandingDto, toChanges } from './api/dto/branding.dto.js';
export { BrandingBody, toBrandingBody } from './api/dto/branding.body.js';
