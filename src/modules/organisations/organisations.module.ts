import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/index.js';
import { InvitationsController } from './api/invitations.controller.js';
import { MemberEventBodies } from './api/member-event-bodies.js';
import { MembersController } from './api/members.controller.js';
import { OrganisationsController } from './api/organisations.controller.js';
import { InvitationsService } from './application/invitations.service.js';
import { MembersService } from './application/members.service.js';
import { OrganisationAccess } from './application/organisation-access.js';
import { OrganisationsFacade } from './application/organisations.facade.js';
import { OrganisationsService } from './application/organisations.service.js';
import { OrganisationsRepository } from './infrastructure/organisations.repository.js';
import { OrganisationsDataContributor } from './infrastructure/organisations-data.contributor.js';

/** Organisations: workspaces as teams, their members, invitations and audit-log route (contract §14). */
@Module({
  imports: [BillingModule],
  controllers: [OrganisationsController, MembersController, InvitationsController],
  providers: [OrganisationsDataContributor, OrganisationsRepository, OrganisationAccess, OrganisationsService, MembersService, InvitationsService, OrganisationsFacade, MemberEventBodies],
  exports: [OrganisationsFacade],
})
export class OrganisationsModule {}
