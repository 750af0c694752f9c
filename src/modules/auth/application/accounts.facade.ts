import { Injectable } from '@nestjs/common';
import { AppError, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Workspace, WorkspaceWithOwner } from '../domain/accounts.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';

/** What other contexts may ask of accounts: workspaces and their owners (plans move through billing). */
@Injectable()
export class AccountsFacade {
  constructor(
    private readonly accounts: AccountsRepository,
  ) {}

  /** Throws `not_found` for an unknown workspace. */
  async getWorkspace(id: string, tx?: Tx): Promise<Workspace> {
    const ws = await this.accounts.getWorkspace(id, tx);
    if (!ws) throw AppError.notFound('Workspace');
    return ws;
  }

  /** The addresses of the workspace's owners, longest-standing first (mail about the workspace goes there). */
  ownerEmails(workspaceId: string): Promise<string[]> {
    return this.accounts.ownerEmails(workspaceId);
  }

  /** Workspaces whose owner's email contains the text (case-insensitive); an empty text lists all. */
  findWorkspacesByOwnerEmail(emailFragment: string, page: PageRequest): Promise<Page<WorkspaceWithOwner>> {
    return this.accounts.findWorkspacesByOwnerEmail(emailFragment.trim(), page);
  }
}
