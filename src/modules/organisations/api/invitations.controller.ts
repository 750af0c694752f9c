import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, PageQueryDto } from '../../../platform/http/index.js';
import { InvitationsService } from '../application/invitations.service.js';
import { OrganisationBody, organisationBody, ReceivedInvitationListBody, receivedInvitationBody } from './dto/organisation.views.js';

const REF_DOC = {
  name: 'idOrToken',
  description: 'The invitation id (`inv_…`, from `GET /invitations`) or the token (`pinv_…`, from an invitation link).',
};

/**
 * The signed-in user's side of invitations, whatever workspace their token is for: the ones sent
 * to their email, and answering them. The path segment may be a token: the access log redacts it
 * (its name ends in `Token`).
 */
@ApiTags('invitations')
@Controller('invitations')
@Product()
@MinRole('viewer')
@ApiErrors('unauthorized', 'session_required', 'rate_limited')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get()
  @ApiOperation({ summary: 'Pending, unexpired invitations sent to your email, from any organization, oldest first.' })
  @ApiOkResponse({ type: ReceivedInvitationListBody })
  async list(@CurrentCaller() caller: Caller, @Query() query: PageQueryDto): Promise<ReceivedInvitationListBody> {
    const page = await this.invitations.listReceived(caller.userId, pageRequest(query.page, query.page_size));
    return { invitations: page.items.map(receivedInvitationBody), page: page.page, page_size: page.pageSize, total: page.total };
  }

  @Post(':idOrToken/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Join the organization of an invitation sent to your email.',
    description: 'Answered, revoked, unknown, or (by id) not yours: 404. Expired: 410. A token for another email: 403.',
  })
  @ApiParam(REF_DOC)
  @ApiOkResponse({ type: OrganisationBody })
  @ApiErrors('not_found', 'invitation_expired', 'invitation_email_mismatch')
  async accept(@CurrentCaller() caller: Caller, @Param('idOrToken') ref: string): Promise<OrganisationBody> {
    return { organization: organisationBody(await this.invitations.accept(ref, caller.userId)) };
  }

  @Post(':idOrToken/decline')
  @HttpCode(204)
  @ApiOperation({ summary: 'Decline an invitation sent to your email; it cannot be accepted afterwards.', description: 'Errors as for accepting.' })
  @ApiParam(REF_DOC)
  @ApiNoContentResponse({ description: 'Declined.' })
  @ApiErrors('not_found', 'invitation_expired', 'invitation_email_mismatch')
  async decline(@CurrentCaller() caller: Caller, @Param('idOrToken') ref: string): Promise<void> {
    await this.invitations.decline(ref, caller.userId);
  }
}
