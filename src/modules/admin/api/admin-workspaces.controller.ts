import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { workspaceBody } from '../../auth/index.js';
import { ledgerEntryBody } from '../../billing/index.js';
import { AdminWorkspacesService } from '../application/admin-workspaces.service.js';
import { AdjustCreditsDto, AdminWorkspacePage, CreditAdjustmentView, SetPlanDto, WorkspaceEnvelope, WorkspaceSearchQuery } from './dto/admin.dto.js';

const WorkspaceId = new IdParam('ws', 'Workspace');

@ApiTags('admin')
@Controller('admin/workspaces')
@Product({ roles: ['admin'] })
@ApiErrors('unauthorized', 'session_required', 'forbidden', 'rate_limited')
export class AdminWorkspacesController {
  constructor(private readonly admin: AdminWorkspacesService) {}

  @Get()
  @ApiOperation({ operationId: 'searchWorkspaces', summary: "Find workspaces by their owner's email." })
  @ApiOkResponse({ type: AdminWorkspacePage })
  async search(@Query() query: WorkspaceSearchQuery) {
    const page = await this.admin.search(query.email, query.page, query.page_size);
    return {
      workspaces: page.items.map((w) => ({ ...workspaceBody(w), owner_email: w.ownerEmail })),
      page: page.page,
      page_size: page.pageSize,
      total: page.total,
    };
  }

  @Patch(':id')
  @ApiOperation({ operationId: 'setWorkspacePlan', summary: "Change a workspace's plan." })
  @ApiErrors('not_found')
  @ApiOkResponse({ type: WorkspaceEnvelope })
  async setPlan(@Param('id', WorkspaceId) id: string, @Body() dto: SetPlanDto, @CurrentCaller() caller: Caller) {
    return { workspace: workspaceBody(await this.admin.setPlan(caller.userId, id, dto.plan)) };
  }

  @Post(':id/credits')
  @ApiOperation({ operationId: 'adjustWorkspaceCredits', summary: 'Grant (positive) or take (negative) credits, with a reason kept in the ledger.' })
  @ApiErrors('not_found', 'insufficient_credits')
  @ApiCreatedResponse({ type: CreditAdjustmentView })
  async adjustCredits(@Param('id', WorkspaceId) id: string, @Body() dto: AdjustCreditsDto, @CurrentCaller() caller: Caller) {
    const { workspace, entry } = await this.admin.adjustCredits({ workspaceId: id, amount: dto.amount, reason: dto.reason, adminUserId: caller.userId });
    return { workspace: workspaceBody(workspace), entry: ledgerEntryBody(entry) };
  }
}
