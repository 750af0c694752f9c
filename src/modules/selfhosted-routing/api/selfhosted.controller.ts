import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppConfig } from '../../../config/index.js';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { SelfHostedAdminService } from '../application/selfhosted-admin.service.js';
import { CAPABILITIES } from '../domain/routing-rules.js';
import { endpointBody, overviewBody, routingBody } from './dto/selfhosted.body.js';
import { CreateEndpointDto, EndpointEnvelope, RoutingEnvelope, RoutingOverviewBody, SetRoutingDto, UpdateEndpointDto } from './dto/selfhosted.dto.js';

const EndpointId = new IdParam('ep', 'Endpoint');

/** Self-hosted GPU routing administration (interface §4.10, contract §13): platform admins only. */
@ApiTags('admin')
@Controller('admin/selfhosted')
@Product({ roles: ['admin'] })
@ApiErrors('unauthorized', 'session_required', 'forbidden', 'rate_limited')
export class SelfHostedController {
  private readonly healthTtlMs: number;

  constructor(
    private readonly admin: SelfHostedAdminService,
    config: AppConfig,
  ) {
    this.healthTtlMs = config.selfHosted.healthTtlMs;
  }

  @Get()
  @ApiOperation({ operationId: 'getSelfHostedOverview', summary: 'The routing setting, every endpoint with its live telemetry, and routing stats.' })
  @ApiOkResponse({ type: RoutingOverviewBody })
  async overview() {
    return overviewBody(await this.admin.overview(), this.healthTtlMs);
  }

  @Put('routing')
  @ApiOperation({ operationId: 'setSelfHostedRouting', summary: 'Turn routing on or off and set the share of image jobs tried self-hosted.' })
  @ApiErrors('validation_failed')
  @ApiOkResponse({ type: RoutingEnvelope })
  async setRouting(@Body() dto: SetRoutingDto, @CurrentCaller() caller: Caller) {
    return { routing: routingBody(await this.admin.setRouting(dto.enabled, dto.routing_percentage, caller)) };
  }

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({ operationId: 'refreshSelfHostedEndpoints', summary: "Probe every active endpoint's health now; answers as GET does." })
  @ApiOkResponse({ type: RoutingOverviewBody })
  async refresh() {
    return overviewBody(await this.admin.refresh(), this.healthTtlMs);
  }

  @Post('endpoints')
  @ApiOperation({ operationId: 'createSelfHostedEndpoint', summary: 'Register a self-hosted endpoint (AUTOMATIC1111/Forge or ComfyUI).' })
  @ApiErrors('validation_failed')
  @ApiCreatedResponse({ type: EndpointEnvelope })
  async create(@Body() dto: CreateEndpointDto, @CurrentCaller() caller: Caller) {
    const created = await this.admin.create(
      {
        name: dto.name,
        url: dto.url,
        kind: dto.kind,
        status: dto.status ?? 'active',
        maxConcurrency: dto.max_concurrency ?? 1,
        capabilities: dto.capabilities ?? [...CAPABILITIES],
        apiKey: dto.api_key ?? null,
        workflow: dto.workflow ?? null,
      },
      caller,
    );
    return { endpoint: endpointBody(created, this.healthTtlMs) };
  }

  @Patch('endpoints/:id')
  @ApiOperation({ operationId: 'updateSelfHostedEndpoint', summary: "Change an endpoint's settings; `api_key: null` removes its key." })
  @ApiErrors('validation_failed', 'not_found')
  @ApiOkResponse({ type: EndpointEnvelope })
  async update(@Param('id', EndpointId) id: string, @Body() dto: UpdateEndpointDto, @CurrentCaller() caller: Caller) {
    const patch = {
      name: dto.name,
      url: dto.url,
      kind: dto.kind,
      status: dto.status,
      maxConcurrency: dto.max_concurrency,
      capabilities: dto.capabilities,
      apiKey: dto.api_key,
      workflow: dto.workflow,
    };
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    return { endpoint: endpointBody(await this.admin.update(id, defined, caller), this.healthTtlMs) };
  }

  @Delete('endpoints/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteSelfHostedEndpoint', summary: 'Remove an endpoint; jobs running on it finish there.' })
  @ApiErrors('not_found')
  @ApiNoContentResponse()
  async remove(@Param('id', EndpointId) id: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.admin.remove(id, caller);
  }
}
