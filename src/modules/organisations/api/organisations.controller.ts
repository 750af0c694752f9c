import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageOf, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, PageQueryDto } from '../../../platform/http/index.js';
import { OrganisationsService } from '../application/organisations.service.js';
import { toBrandingBody, toChanges } from '../branding/index.js';
import { AuditLogBody, auditEntryBody, OrganisationBody, organisationBody, OrganisationListBody, OrganisationUpdatedBody } from './dto/organisation.views.js';
import { AuditLogQueryDto, CreateOrganisationDto, UpdateOrganisationDto } from './dto/organisations.dto.js';

/**
 * Organisations (workspaces) the caller belongs to. The path's workspace need not be the token's:
 * `@MinRole('viewer')` admits any member here and the service checks the role held in the path's
 * workspace (a workspace you are not in is 404).
 */
@ApiTags('organizations')
@Controller('organizations')
@Product()
@MinRole('viewer')
@ApiErrors('unauthorized', 'session_required', 'rate_limited')
export class OrganisationsController {
  constructor(private readonly orgs: OrganisationsService) {}

  @Get()
  @ApiOperation({ summary: 'Every workspace you belong to, with your role in each.' })
  @ApiOkResponse({ type: OrganisationListBody })
  async list(@CurrentCaller() caller: Caller, @Query() query: PageQueryDto): Promise<OrganisationListBody> {
    const page = pageOf((await this.orgs.list(caller.userId)).map(organisationBody), pageRequest(query.page, query.page_size));
    return { organizations: page.items, page: page.page, page_size: page.pageSize, total: page.total };
  }

  @Post()
  @ApiOperation({ summary: 'Create a workspace (Starter, no credits); you become its owner.' })
  @ApiCreatedResponse({ type: OrganisationBody })
  @ApiErrors('slug_taken')
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateOrganisationDto): Promise<OrganisationBody> {
    return { organization: organisationBody(await this.orgs.create(caller.userId, dto.name, dto.slug)) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One workspace you belong to.' })
  @ApiOkResponse({ type: OrganisationBody })
  @ApiErrors('not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string): Promise<OrganisationBody> {
    return { organization: organisationBody(await this.orgs.get(id, caller.userId)) };
  }

  @Put(':id')
  @ApiOperation({ summary: 'Rename the workspace, set its slug or its branding (admin), or require two-factor sign-in of its members (owner).' })
  @ApiOkResponse({ type: OrganisationUpdatedBody })
  @ApiErrors('not_found', 'slug_taken', 'domain_taken', 'domain_confusable', 'mfa_required')
  async update(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string, @Body() dto: UpdateOrganisationDto) {
    const branding = dto.branding ? toChanges(dto.branding) : undefined;
    const updated = await this.orgs.update(id, caller.userId, { name: dto.name, slug: dto.slug, branding, requireMfa: dto.require_mfa });
    return { organization: organisationBody(updated.organisation), ...(updated.branding ? { branding: toBrandingBody(updated.branding) } : {}) };
  }

  @Get(':id/audit-log')
  @ApiOperation({ operationId: 'listAuditLog', summary: "The workspace's audit log, newest first (admin)." })
  @ApiOkResponse({ type: AuditLogBody })
  @ApiErrors('not_found')
  async auditLog(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string, @Query() q: AuditLogQueryDto): Promise<AuditLogBody> {
    const page = await this.orgs.auditLog(id, caller.userId, { limit: q.limit ?? 50, before: q.before, action: q.action, actorId: q.actor_id });
    return { entries: page.entries.map(auditEntryBody), next_before: page.nextBefore };
  }
}
