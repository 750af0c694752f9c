import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageOf, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, PageQueryDto } from '../../../platform/http/index.js';
import { MembersService } from '../application/members.service.js';
import { invitationBody, InvitedBody, MemberBody, memberBody, MemberListBody } from './dto/organisation.views.js';
import { AddMemberDto, ChangeRoleDto } from './dto/organisations.dto.js';

const WS = new IdParam('ws', 'Organization');
const USER = new IdParam('user', 'Member');
const INVITATION = new IdParam('inv', 'Invitation');

/**
 * A workspace's members and the invitations it sent. As for organisations, `@MinRole('viewer')`
 * admits members; the service checks the role held in the path's workspace: owners manage members
 * and invitations, anyone may leave.
 */
@ApiTags('organizations')
@Controller()
@Product()
@MinRole('viewer')
@ApiErrors('unauthorized', 'session_required', 'rate_limited', 'not_found')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get('organizations/:id/members')
  @ApiOperation({ summary: 'The members; admins and owners also see pending invitations.' })
  @ApiOkResponse({ type: MemberListBody })
  async list(@CurrentCaller() caller: Caller, @Param('id', WS) id: string, @Query() query: PageQueryDto): Promise<MemberListBody> {
    const { members, invitations } = await this.members.list(id, caller.userId);
    const page = pageOf(members.map(memberBody), pageRequest(query.page, query.page_size));
    return { members: page.items, page: page.page, page_size: page.pageSize, total: page.total, ...(invitations ? { invitations: invitations.map(invitationBody) } : {}) };
  }

  @Post('organizations/:id/members')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Invite an email to join; they accept or decline. The token is shown once. Owner.',
    description: 'The answer is the same whether or not the email has an account: nobody joins without accepting.',
  })
  @ApiCreatedResponse({ type: InvitedBody })
  @ApiErrors('member_limit_reached', 'member_exists')
  async add(@CurrentCaller() caller: Caller, @Param('id', WS) id: string, @Body() dto: AddMemberDto): Promise<InvitedBody> {
    const issued = await this.members.invite(id, caller.userId, dto.email, dto.role);
    return { invitation: { ...invitationBody(issued.invitation), token: issued.token } };
  }

  @Delete('organizations/:id/invitations/:invitationId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeInvitation', summary: 'Revoke a pending invitation; its id and token stop working. Owner.' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  async revoke(@CurrentCaller() caller: Caller, @Param('id', WS) id: string, @Param('invitationId', INVITATION) invitationId: string): Promise<void> {
    await this.members.revokeInvitation(id, caller.userId, invitationId);
  }

  @Put('organizations/:id/members/:userId')
  @ApiOperation({ operationId: 'changeMemberRole', summary: "Change a member's role. Owner; the last owner cannot be demoted." })
  @ApiOkResponse({ type: MemberBody })
  @ApiErrors('last_owner')
  async changeRole(@CurrentCaller() caller: Caller, @Param('id', WS) id: string, @Param('userId', USER) userId: string, @Body() dto: ChangeRoleDto): Promise<MemberBody> {
    return { member: memberBody(await this.members.changeRole(id, caller.userId, userId, dto.role)) };
  }

  @Delete('organizations/:id/members/:userId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a member (owner), or leave (yourself). The last owner cannot leave.' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors('last_owner')
  async remove(@CurrentCaller() caller: Caller, @Param('id', WS) id: string, @Param('userId', USER) userId: string): Promise<void> {
    await this.members.remove(id, caller.userId, userId);
  }
}
