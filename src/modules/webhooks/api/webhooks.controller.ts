import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { WebhooksService } from '../application/webhooks.service.js';
import { DeliveriesQuery, CreateEndpointDto, UpdateEndpointDto } from './dto/webhooks.dto.js';
import {
  toDeliveryBody, toEndpointBody, toEndpointCreatedBody, WebhookDeliveryOneBody, WebhookDeliveryPageBody, WebhookEndpointBody,
  WebhookEndpointCreatedBody, WebhookEndpointListBody, WebhookEndpointOneBody,
} from './dto/webhook.body.js';

const ENDPOINT = new IdParam('whe', 'Webhook endpoint');

/**
 * Outbound webhooks (docs/webhooks.md): a workspace's endpoints, their deliveries and retries.
 * Agency plan; owners and admins write, every member reads. Sessions only.
 */
@ApiTags('webhooks')
@ApiExtraModels(WebhookEndpointBody)
@Controller('webhooks/endpoints')
@Product({ plans: ['agency'] })
@MinRole('viewer')
@ApiErrors('unauthorized', 'session_required', 'plan_required', 'rate_limited')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @MinRole('admin')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Add an endpoint. The signing `secret` is shown in this answer only.' })
  @ApiCreatedResponse({ type: WebhookEndpointCreatedBody })
  @ApiErrors('validation_failed', 'webhook_endpoint_limit_reached')
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateEndpointDto): Promise<WebhookEndpointCreatedBody> {
    return toEndpointCreatedBody(await this.webhooks.create(caller, { url: body.url, description: body.description, eventTypes: body.event_types }));
  }

  @Get()
  @ApiOperation({ summary: "The workspace's endpoints, newest first. Never their secrets." })
  @ApiOkResponse({ type: WebhookEndpointListBody })
  async list(@CurrentCaller() caller: Caller): Promise<WebhookEndpointListBody> {
    return { endpoints: (await this.webhooks.list(caller.workspaceId)).map(toEndpointBody) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One endpoint. Never its secret.' })
  @ApiOkResponse({ type: WebhookEndpointOneBody })
  @ApiErrors('not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', ENDPOINT) id: string): Promise<WebhookEndpointOneBody> {
    return { endpoint: toEndpointBody(await this.webhooks.get(caller.workspaceId, id)) };
  }

  @Patch(':id')
  @MinRole('admin')
  @ApiOperation({ summary: 'Change the URL, description, event types, or turn the endpoint off or back on.' })
  @ApiOkResponse({ type: WebhookEndpointOneBody })
  @ApiErrors('validation_failed', 'not_found')
  async update(@CurrentCaller() caller: Caller, @Param('id', ENDPOINT) id: string, @Body() body: UpdateEndpointDto): Promise<WebhookEndpointOneBody> {
    const view = await this.webhooks.update(caller, id, { url: body.url, description: body.description, eventTypes: body.event_types, enabled: body.enabled });
    return { endpoint: toEndpointBody(view) };
  }

  @Delete(':id')
  @MinRole('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an endpoint, with its deliveries and their attempts.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('not_found')
  async remove(@CurrentCaller() caller: Caller, @Param('id', ENDPOINT) id: string): Promise<void> {
    await this.webhooks.remove(caller, id);
  }

  @Post(':id/rotate-secret')
  @MinRole('admin')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'A new signing secret (shown in this answer only); the previous one keeps signing beside it for 24 hours.' })
  @ApiOkResponse({ type: WebhookEndpointCreatedBody })
  @ApiErrors('not_found')
  async rotate(@CurrentCaller() caller: Caller, @Param('id', ENDPOINT) id: string): Promise<WebhookEndpointCreatedBody> {
    return toEndpointCreatedBody(await this.webhooks.rotateSecret(caller, id));
  }

  @Post(':id/test')
  @MinRole('admin')
  @HttpCode(202)
  @ApiOperation({ summary: 'Queue a `webhook.test` event to the endpoint; it is signed and retried like any other.' })
  @ApiAcceptedResponse({ type: WebhookDeliveryOneBody })
  @ApiErrors('not_found', 'invalid_state_transition')
  async test(@CurrentCaller() caller: Caller, @Param('id', ENDPOINT) id: string): Promise<WebhookDeliveryOneBody> {
    return { delivery: toDeliveryBody(await this.webhooks.sendTest(caller, id)) };
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "The endpoint's deliveries, newest first, with their last attempts; filter by status and event type." })
  @ApiOkResponse({ type: WebhookDeliveryPageBody })
  @ApiErrors('validation_failed', 'not_found')
  async deliveries(@CurrentCaller() caller: Caller, @Param('id', ENDPOINT) id: string, @Query() query: DeliveriesQuery): Promise<WebhookDeliveryPageBody> {
    const page = await this.webhooks.deliveries(caller.workspaceId, id, { status: query.status, eventType: query.event_type }, pageRequest(query.page, query.page_size));
    return { deliveries: page.items.map(toDeliveryBody), page: page.page, page_size: page.pageSize, total: page.total };
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @MinRole('admin')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a delivered or failed delivery again now (same event id; the attempt count continues).' })
  @ApiAcceptedResponse({ type: WebhookDeliveryOneBody })
  @ApiErrors('not_found', 'invalid_state_transition')
  async retry(
    @CurrentCaller() caller: Caller,
    @Param('id', ENDPOINT) id: string,
    @Param('deliveryId', new IdParam('whd', 'Webhook delivery')) deliveryId: string,
  ): Promise<WebhookDeliveryOneBody> {
    return { delivery: toDeliveryBody(await this.webhooks.retry(caller, id, deliveryId)) };
  }
}
