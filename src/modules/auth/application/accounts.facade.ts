import { Injectable } from '@nestjs/common';
import { AppError, type Page, type PageRequest, type Plan } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import type { Workspace, WorkspaceWithOwner } from '../domain/accounts.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';

/** What other contexts may ask of accounts: workspaces, their plan and their owners. */
@Injectable()
export class AccountsFacade {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly limiter: RateLimiter,
  ) {}

  /** Throws `not_found` for an unknown workspace. */
  async getWorkspace(id: string, tx?: Tx): Promise<Workspace> {
    const ws = await this.accounts.getWorkspace(id, tx);
    if (!ws) throw AppError.notFound('Workspace');
    return ws;
  }

  /** Workspaces whose owner's email contains the text (case-insensitive); an empty text lists all. */
  findWorkspacesByOwnerEmail(emailFragment: string, page: PageRequest): Promise<Page<WorkspaceWithOwner>> {
    return this.accounts.findWorkspacesByOwnerEmail(emailFragment.trim(), page);
  }

  /** Commits on its own (no caller transaction): sessions must see the new plan once it is moved. */
  async setPlan(id: string, plan: Plan): Promise<Workspace> {
    const changed = await this.accounts.setPlan(id, plan);
    if (!changed) throw AppError.notFound('Workspace');
    await this.limiter.bumpAccessStamp(id);
    return changed.workspace;
  }

  /**
   * The same change in the caller's transaction (to record it with something else), answering the
   * plan it left. The caller moves the access stamp after commit, or sessions keep the old plan.
   */
  async changePlan(tx: Tx, id: string, plan: Plan): Promise<{ workspace: Workspace; from: Plan }> {
    const changed = await this.accounts.setPlan(id, plan, tx);
    if (!changed) throw AppError.notFound('Workspace');
    return changed;
  }
}
