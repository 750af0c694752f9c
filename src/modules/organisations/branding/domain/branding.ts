import { customDomainProblem } from './custom-domain.js';
import { supportEmailProblem } from './support-email.js';

/**
 * A workspace's white-label branding (contract §14): what its login page and the pages the API
 * renders show instead of the product's own name and colors.
 */
export interface Branding {
  workspaceId: string;
  displayName: string | null;
  logoKey: string | null;
  primaryColor: string | null;
  secondaryColor: string | null;
  customDomain: string | null;
  supportEmail: string | null;
  updatedAt: Date;
}

/** The fields a client may set; `undefined` leaves a field as it is, `null` clears it. */
export interface BrandingChanges {
  displayName?: string | null;
  primaryColor?: string | null;
  secondaryColor?: string | null;
  customDomain?: string | null;
  supportEmail?: string | null;
}

export { customDomainProblem } from './custom-domain.js';
export { SUPPORT_EMAIL_MAX, supportEmailProblem } from './support-email.js';

export const DISPLAY_NAME_MAX = 100;
const COLOR = /^#[0-9A-Fa-f]{6}$/;

export function colorProblem(value: unknown, field: string): string | null {
  return typeof value === 'string' && COLOR.test(value) ? null : `${field} must be a color written #RRGGBB`;
}

export function displayNameProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > DISPLAY_NAME_MAX) {
    return `display_name must be 1 to ${DISPLAY_NAME_MAX} characters`;
  }
  return null;
}

/** The branding after `changes`: a field left out keeps its value. */
export function applyChanges(current: Branding, changes: BrandingChanges, now: Date): Branding {
  const pick = <T>(next: T | undefined, kept: T): T => (next === undefined ? kept : next);
  return {
    ...current,
    displayName: pick(changes.displayName, current.displayName),
    primaryColor: pick(changes.primaryColor, current.primaryColor),
    secondaryColor: pick(changes.secondaryColor, current.secondaryColor),
    customDomain: pick(changes.customDomain, current.customDomain),
    supportEmail: pick(changes.supportEmail, current.supportEmail),
    updatedAt: now,
  };
}

/** A workspace that never set anything: everything empty, the product's own look. */
export function emptyBranding(workspaceId: string, now: Date): Branding {
  return { workspaceId, displayName: null, logoKey: null, primaryColor: null, secondaryColor: null, customDomain: null, supportEmail: null, updatedAt: now };
}

/** Branding shows only when there is something of the workspace's own to show. */
export function hasBranding(b: Branding): boolean {
  return b.displayName !== null || b.logoKey !== null || b.primaryColor !== null || b.secondaryColor !== null;
}

/**
 * Every field problem of `changes`, in the API's field names; empty when all are fine. The API's
 * DTO checks the same rules; this covers callers that arrive another way (an organisation update
 * carrying branding).
 */
export function changeProblems(changes: BrandingChanges): Array<{ field: string; message: string }> {
  const checks: Array<[string, unknown, (v: unknown) => string | null]> = [
    ['display_name', changes.displayName, displayNameProblem],
    ['primary_color', changes.primaryColor, (v) => colorProblem(v, 'primary_color')],
    ['secondary_color', changes.secondaryColor, (v) => colorProblem(v, 'secondary_color')],
    ['custom_domain', changes.customDomain, customDomainProblem],
    ['support_email', changes.supportEmail, supportEmailProblem],
  ];
  return checks.flatMap(([field, value, problem]) => {
    const message = value === undefined || value === null ? null : problem(value);
    return message ? [{ field, message }] : [];
  });
}
