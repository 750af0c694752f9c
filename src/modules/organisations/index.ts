/** What other contexts may use from organisations: the module and its facade (invitations on registration). */
export { OrganisationsModule } from './organisations.module.js';
export { OrganisationsFacade } from './application/organisations.facade.js';
export { ORGANISATIONS_ERRORS } from './errors.js';
export { BrandingModule, BrandingService, renderBrandedPage, escapeHtml, BRANDED_PAGE_CSP, BRANDING_ERRORS, BRANDING_JOB_TYPES, type BrandingView, type PageBranding, type MailBranding, type PageContent, type BrandingChanges } from './branding/index.js';
