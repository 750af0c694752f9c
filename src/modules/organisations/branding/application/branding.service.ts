import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../../config/index.js';
import { AppError } from '../../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../../platform/database/index.js';
import { readUploadedImage } from '../../../../platform/media/index.js';
import { Storage } from '../../../../platform/storage/index.js';
import { AuditLog } from '../../../audit/index.js';
import { applyChanges, changeProblems, emptyBranding, hasBranding, type Branding, type BrandingChanges } from '../domain/branding.js';
import { normaliseDomain, verificationRecordName, verificationRecordValue } from '../domain/custom-domain.js';
import type { CheckOutcome, DomainClaim, DomainFailure, DomainStatus } from '../domain/domain-claim.js';
import { normaliseSupportEmail } from '../domain/support-email.js';
import { BrandingRepository } from '../infrastructure/branding.repository.js';
import { VERIFIED_INDEXES } from '../infrastructure/domain-claims.repository.js';
import { DomainClaimsService, domainTaken } from './domain-claims.service.js';

/** A logo shows on a login page: 2 MiB is plenty for any sensible one. */
export const MAX_LOGO_BYTES = 2 * 1024 * 1024;

/** The path of the open route that serves logos, relative to the public URL. */
export const LOGO_PATH = '/api/v1/branding/logo';

/** A claim on a custom domain as its owners see it: the status and the TXT record that proves it. */
export interface DomainVerificationView {
  domain: string;
  domainUnicode: string;
  status: DomainStatus;
  failure: DomainFailure | null;
  lastOutcome: CheckOutcome | null;
  recordName: string;
  recordValue: string;
  lastCheckedAt: Date | null;
  verifiedAt: Date | null;
  nextCheckAt: Date | null;
}

/** Branding with its logo as a URL anyone can load (the login page has no token). */
export interface BrandingView extends Omit<Branding, 'logoKey'> {
  logoUrl: string | null;
  customDomainUnicode: string | null;
  customDomainStatus: DomainStatus | null;
  domainVerification: DomainVerificationView | null;
}

/** What a page the API renders needs to look like the workspace's own. */
export interface PageBranding {
  displayName: string | null;
  primaryColor: string | null;
  secondaryColor: string | null;
  logoUrl: string | null;
}

/** What a message sent on behalf of a workspace shows: its page branding and its support address. */
export interface MailBranding extends PageBranding {
  supportEmail: string | null;
}

/**
 * A write of `changes` that failed on the uniqueness of verified domains, as the 409
 * `domain_taken` every route that changes branding answers; any other error as it came.
 */
export function asDomainTaken(err: unknown, changes: BrandingChanges | undefined): unknown {
  return VERIFIED_INDEXES.some((index) => isUniqueViolation(err, index)) ? domainTaken(changes?.customDomain?.toLowerCase() ?? 'asked for') : err;
}

/** The changes with the custom domain in its A-label form and the support email normalised; 400 naming each bad field. */
function normalised(input: BrandingChanges): BrandingChanges {
  const problems = changeProblems(input);
  if (problems.length > 0) throw new AppError('validation_failed', 'The branding is not valid.', problems);
  const domain = typeof input.customDomain === 'string' ? normaliseDomain(input.customDomain) : null;
  const email = typeof input.supportEmail === 'string' ? normaliseSupportEmail(input.supportEmail) : null;
  return {
    ...input,
    customDomain: domain?.ok ? domain.domain.ascii : input.customDomain,
    supportEmail: email?.ok ? email.email : input.supportEmail,
  };
}

/** White-label branding of a workspace (contract §14). */
@Injectable()
export class BrandingService {
  private readonly logger = new Logger('Branding');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: BrandingRepository,
    private readonly storage: Storage,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    private readonly claims: DomainClaimsService,
  ) {}

  /** The workspace's branding; a workspace that never set any has an empty one. */
  async get(workspaceId: string): Promise<BrandingView> {
    const found = await this.repo.find(this.ds.manager, workspaceId);
    return this.view(found ?? emptyBranding(workspaceId, new Date(0)), await this.claims.find(workspaceId));
  }

  /**
   * The branding of the workspace that has proven it owns `domain` (any spelling UTS-46 maps to
   * the same A-label); 404 when none has, including every domain only claimed (pending or failed).
   */
  async byDomain(domain: string): Promise<BrandingView> {
    const host = normaliseDomain(domain, 'domain');
    const found = host.ok ? await this.repo.findByVerifiedDomain(this.ds.manager, host.domain.ascii) : null;
    if (!found) throw AppError.notFound('Branding');
    return this.view(found, await this.claims.find(found.workspaceId));
  }

  /** Checks the workspace's domain proof now; 404 when it claims no domain. */
  async verifyDomain(workspaceId: string): Promise<DomainVerificationView> {
    const claim = await this.claims.check(workspaceId);
    if (!claim) throw AppError.notFound('Custom domain');
    return verificationView(claim);
  }

  /**
   * A partial update in the caller's transaction, audited there. The domain is checked before the
   * write, so a taken domain is a 409 without aborting the caller's transaction; the unique index
   * still decides between two workspaces claiming one domain at the same moment.
   */
  async update(tx: Tx, workspaceId: string, actorUserId: string, input: BrandingChanges): Promise<BrandingView> {
    const changes = normalised(input);
    const current = await this.repo.lockOrCreate(tx, workspaceId);
    const claim = changes.customDomain === undefined
      ? await this.claims.find(workspaceId, tx)
      : await this.claims.claim(tx, workspaceId, changes.customDomain === null ? null : expectDomain(changes.customDomain));
    const next = applyChanges(current, changes, new Date());
    await this.repo.save(tx, next);
    const fields = Object.entries(changes).filter(([, v]) => v !== undefined).map(([k]) => snake(k));
    await this.audit.record(tx, { workspaceId, actorUserId, action: 'branding.updated', targetType: 'workspace', targetId: workspaceId, details: { fields } });
    return this.view({ ...next, customDomain: claim?.domain ?? null }, claim);
  }

  /** `update` in a transaction of its own, as the branding route uses it. */
  async change(workspaceId: string, actorUserId: string, input: BrandingChanges): Promise<BrandingView> {
    try {
      return await inTransaction(this.ds, (tx) => this.update(tx, workspaceId, actorUserId, input));
    } catch (err) {
      throw asDomainTaken(err, input);
    }
  }

  /**
   * A new logo: JPEG, PNG or WebP by its bytes (SVG is refused: it can carry script, and the logo
   * is served to anyone), at most MAX_LOGO_BYTES. Stored first under a fresh key, so the old logo
   * keeps serving until the row names the new one; the one not named afterwards is removed.
   */
  async uploadLogo(workspaceId: string, actorUserId: string, bytes: Buffer): Promise<BrandingView> {
    const image = await readUploadedImage(bytes, MAX_LOGO_BYTES, 'A logo');
    const key = `branding/${workspaceId}/logo-${randomBytes(8).toString('hex')}.${image.ext}`;
    await this.storage.put(key, bytes, image.mime);
    let previous: string | null = null;
    try {
      const saved = await inTransaction(this.ds, async (tx) => {
        const current = await this.repo.lockOrCreate(tx, workspaceId);
        previous = current.logoKey;
        const next = { ...current, logoKey: key, updatedAt: new Date() };
        await this.repo.save(tx, next);
        await this.audit.record(tx, { workspaceId, actorUserId, action: 'branding.updated', targetType: 'workspace', targetId: workspaceId, details: { fields: ['logo'], size_bytes: bytes.length, type: image.mime } });
        return next;
      });
      if (previous) await this.forget(previous);
      return this.view(saved, await this.claims.find(workspaceId));
    } catch (err) {
      await this.forget(key);
      throw err;
    }
  }

  /** The stored logo of a workspace, for the open logo route; null when it has none. */
  async logoKey(workspaceId: string): Promise<string | null> {
    return (await this.repo.find(this.ds.manager, workspaceId))?.logoKey ?? null;
  }

  /** What a rendered page shows for the workspace; null when it has no branding of its own. */
  async forPage(workspaceId: string): Promise<PageBranding | null> {
    const found = await this.repo.find(this.ds.manager, workspaceId);
    if (!found || !hasBranding(found)) return null;
    const v = this.view(found, null);
    return { displayName: v.displayName, primaryColor: v.primaryColor, secondaryColor: v.secondaryColor, logoUrl: v.logoUrl };
  }

  /**
   * What a message sent on behalf of the workspace carries (its name, colours, logo, support
   * address as reply-to); null when it has no branding of its own, and for a workspace gone.
   */
  async forMail(workspaceId: string): Promise<MailBranding | null> {
    const found = await this.repo.find(this.ds.manager, workspaceId);
    if (!found || !hasBranding(found)) return null;
    const v = this.view(found, null);
    return { displayName: v.displayName, primaryColor: v.primaryColor, secondaryColor: v.secondaryColor, logoUrl: v.logoUrl, supportEmail: v.supportEmail };
  }

  private view(b: Branding, claim: DomainClaim | null): BrandingView {
    const { logoKey, ...rest } = b;
    const verification = claim ? verificationView(claim) : null;
    return {
      ...rest,
      logoUrl: logoKey ? this.logoUrl(b.workspaceId, logoKey) : null,
      customDomain: verification?.domain ?? null,
      customDomainUnicode: verification?.domainUnicode ?? null,
      customDomainStatus: verification?.status ?? null,
      domainVerification: verification,
    };
  }

  /**
   * The logo's public URL. The version is the key's own random part: a new logo is a new URL, so
   * the route may let browsers and shared caches keep a logo for long.
   */
  private logoUrl(workspaceId: string, key: string): string {
    const version = key.slice(key.lastIndexOf('/') + 1 + 'logo-'.length, key.lastIndexOf('.'));
    return `${this.config.publicUrl.replace(/\/+$/, '')}${LOGO_PATH}/${workspaceId}?v=${version}`;
  }

  private async forget(key: string): Promise<void> {
    await this.storage.delete(key).catch((e: unknown) => this.logger.warn({ msg: 'could not remove stored logo', key, err: String(e) }));
  }
}

function verificationView(c: DomainClaim): DomainVerificationView {
  const host = normaliseDomain(c.domain);
  return {
    domain: c.domain, domainUnicode: host.ok ? host.domain.unicode : c.domain, status: c.status, failure: c.failure, lastOutcome: c.lastOutcome,
    recordName: verificationRecordName(c.domain), recordValue: verificationRecordValue(c.token),
    lastCheckedAt: c.lastCheckedAt, verifiedAt: c.verifiedAt, nextCheckAt: c.nextCheckAt,
  };
}

/** A domain `normalised` already accepted, in both forms. */
function expectDomain(ascii: string) {
  const host = normaliseDomain(ascii);
  if (!host.ok) throw new AppError('validation_failed', 'The branding is not valid.', [{ field: 'custom_domain', message: host.problem }]);
  return host.domain;
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
