import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { ApiKeysService } from '../application/api-keys.service.js';
import { ApiKeyCreatedBody, ApiKeyListBody, toApiKeyBody, toApiKeyCreatedBody } from './dto/api-key.body.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';

/** Keys for the agency public API. Only creation needs Agency: a downgraded workspace can still list and revoke. */
@ApiTags('api-keys')
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @Product({ plans: ['agency'], verifiedEmail: true })
  @MinRole('admin')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Create an API key. The secret `key` is shown in this answer only.' })
  @ApiCreatedResponse({ type: ApiKeyCreatedBody })
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'rate_limited')
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateApiKeyDto): Promise<ApiKeyCreatedBody> {
    const issued = await this.keys.create(caller, {
      name: body.name,
      scopes: body.scopes,
      expiresAt: body.expires_at ? new Date(body.expires_at) : undefined,
    });
    return toApiKeyCreatedBody(issued);
  }

  @Get()
  @Product()
  @MinRole('admin')
  @ApiOperation({ summary: "The workspace's keys that still work, newest first. Never the secret." })
  @ApiOkResponse({ type: ApiKeyListBody })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async list(@CurrentCaller() caller: Caller): Promise<ApiKeyListBody> {
    const keys = await this.keys.list(caller.workspaceId);
    return { api_keys: keys.map(toApiKeyBody) };
  }

  @Delete(':id')
  @Product()
  @MinRole('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key. It stops working at once.' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async revoke(@CurrentCaller() caller: Caller, @Param('id', new IdParam('key', 'API key')) id: string): Promise<void> {
    await this.keys.revoke(caller, id);
  }
}
