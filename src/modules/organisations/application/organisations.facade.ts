import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { InvitationsService } from './invitations.service.js';

/** What other contexts may ask of organisations. */
@Injectable()
export class OrganisationsFacade {
  constructor(private readonly invitations: InvitationsService) {}

  /**
   * Registration with an invitation token: the new user joins the inviting workspace in the
   * registration's transaction. A bad token throws, so the account is not created either.
   * Answers the joined workspace's id.
   */
  async acceptOnRegister(tx: Tx, userId: string, email: string, token: string): Promise<string> {
    return (await this.invitations.acceptIn(tx, token, { id: userId, email })).id;
  }
}
