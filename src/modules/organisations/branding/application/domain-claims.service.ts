import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../../../config/index.js';
import { AppError } from '../../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../../platform/database/index.js';
import { domainSkeleton, provesClaim, verificationRecordName, type NormalisedDomain } from '../domain/custom-domain.js';
import { afterCheck, lose, newClaim, type CheckOutcome, type CheckPolicy, type DomainClaim } from '../domain/domain-claim.js';
import { DomainClaimsRepository, VERIFIED_INDEXES } from '../infrastructure/domain-claims.repository.js';
import { TxtResolver, type TxtLookup } from './ports/txt-resolver.js';

export const domainTaken = (domain: string): AppError =>
  new AppError('domain_taken', `The domain ${domain} is already verified by another workspace.`, { field: 'custom_domain' });

const domainConfusable = (domain: NormalisedDomain, lookalike: string): AppError =>
  new AppError('domain_confusable', `The domain ${domain.unicode} looks like ${lookalike}, which another workspace has verified.`, { field: 'custom_domain', looks_like: lookalike });

/** What one lookup says about a claim's proof. */
export function outcomeOf(lookup: TxtLookup, token: string): CheckOutcome {
  if (lookup.kind === 'absent') return 'absent';
  if (lookup.kind === 'unavailable') return 'unavailable';
  return provesClaim(lookup.records, token) ? 'found' : 'mismatch';
}

/**
 * Custom-domain claims and their DNS proof: a claim is made when branding names a domain, checked
 * on demand and by the periodic job, and only a verified claim's branding is served by domain.
 */
@Injectable()
export class DomainClaimsService {
  private readonly logger = new Logger('Branding');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: DomainClaimsRepository,
    private readonly resolver: TxtResolver,
    private readonly config: AppConfig,
  ) {}

  find(workspaceId: string, m: EntityManager = this.ds.manager): Promise<DomainClaim | null> {
    return this.repo.find(m, workspaceId);
  }

  /**
   * Sets the workspace's domain in `tx`: the same domain keeps its claim (and token); another one
   * replaces it with a new pending claim; null drops it. A domain another workspace has verified
   * is 409 `domain_taken`, a look-alike of one 409 `domain_confusable`; a domain others only claim
   * (pending) may be claimed too: whoever proves it first wins.
   */
  async claim(tx: Tx, workspaceId: string, domain: NormalisedDomain | null): Promise<DomainClaim | null> {
    const current = await this.repo.lock(tx, workspaceId);
    if (domain === null) {
      if (current) await this.repo.remove(tx, workspaceId);
      return null;
    }
    if (current?.domain === domain.ascii) return current;
    const skeleton = domainSkeleton(domain.ascii);
    const rival = await this.repo.verifiedRival(tx, workspaceId, domain.ascii, skeleton);
    if (rival) throw rival.domain === domain.ascii ? domainTaken(domain.ascii) : domainConfusable(domain, rival.domain);
    const claim = newClaim(workspaceId, domain.ascii, skeleton, randomBytes(16).toString('hex'), new Date(), this.policy());
    await this.repo.save(tx, claim);
    return claim;
  }

  /**
   * Looks the proof up now and records what was seen. With `token` (a scheduled check), only when
   * the claim is still that one. Null when the workspace has no such claim. The lookup runs outside
   * any transaction; two verifications of one domain at once meet at the unique index, and the
   * loser records its check again, seeing the winner.
   */
  async check(workspaceId: string, token?: string): Promise<DomainClaim | null> {
    const claim = await this.repo.find(this.ds.manager, workspaceId);
    if (!claim || (token !== undefined && claim.token !== token)) return null;
    const outcome = outcomeOf(await this.resolver.lookupTxt(verificationRecordName(claim.domain)), claim.token);
    const record = () => inTransaction(this.ds, (tx) => this.record(tx, workspaceId, claim.token, outcome));
    try {
      return await record();
    } catch (err) {
      if (!VERIFIED_INDEXES.some((index) => isUniqueViolation(err, index))) throw err;
      return record();
    }
  }

  private async record(tx: Tx, workspaceId: string, token: string, outcome: CheckOutcome): Promise<DomainClaim | null> {
    const current = await this.repo.lock(tx, workspaceId);
    if (!current || current.token !== token) return current; // Replaced while we looked: that claim has its own checks.
    const before = { ...current, skeleton: domainSkeleton(current.domain) };
    let next = afterCheck(before, outcome, new Date(), this.policy());
    const becomesVerified = next.status === 'verified' && current.status !== 'verified';
    if (becomesVerified) {
      const rival = await this.repo.verifiedRival(tx, workspaceId, next.domain, next.skeleton);
      if (rival) next = lose(next, rival.domain === next.domain ? 'claimed_elsewhere' : 'confusable');
    }
    await this.repo.save(tx, next);
    if (next.status !== current.status) this.logger.log({ msg: 'custom domain status changed', workspace_id: workspaceId, domain: next.domain, from: current.status, to: next.status, failure: next.failure });
    if (becomesVerified && next.status === 'verified') {
      const lost = await this.repo.failRivals(tx, next);
      if (lost > 0) this.logger.log({ msg: 'competing domain claims lost', domain: next.domain, count: lost });
    }
    return next;
  }

  private policy(): CheckPolicy {
    const d = this.config.domains;
    return { pendingCheckMs: d.pendingCheckMs, verifiedCheckMs: d.verifiedCheckMs, pendingTtlMs: d.pendingTtlMs, missesBeforeFailed: d.missesBeforeFailed };
  }
}
