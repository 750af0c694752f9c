import { Body, Controller, Get, HttpCode, Param, Post, Put, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppError, type Caller } from '../../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../../platform/http/index.js';
import { BrandingService, MAX_LOGO_BYTES } from '../application/branding.service.js';
import { BrandingEnvelope, DomainVerificationEnvelope, toBrandingBody, toDomainVerificationBody } from './dto/branding.body.js';
import { toChanges, UpdateBrandingDto } from './dto/branding.dto.js';

const LOGO_PART = 'logo';

interface UploadedPart {
  fieldname: string;
  buffer: Buffer;
}

/**
 * The organisation is the workspace the caller's token is for: another id, even of a workspace
 * the caller also belongs to, is a 404 like any foreign resource (switch workspace first).
 */
function ownWorkspace(caller: Caller, id: string): string {
  if (id !== caller.workspaceId) throw AppError.notFound('Organization');
  return id;
}

/** A workspace's white-label branding (contract §14): members read it, admins change it. */
@ApiTags('organizations')
@ApiParam({ name: 'id', description: 'The workspace id (ws_…) of the current token.' })
@Controller('organizations/:id/branding')
export class OrganizationBrandingController {
  constructor(private readonly branding: BrandingService) {}

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getBranding', summary: 'The branding; empty fields where none is set.' })
  @ApiOkResponse({ type: BrandingEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async get(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string): Promise<BrandingEnvelope> {
    return { branding: toBrandingBody(await this.branding.get(ownWorkspace(caller, id))) };
  }

  @Put()
  @Product()
  @MinRole('admin')
  @ApiOperation({ operationId: 'updateBranding', summary: 'Change some fields; a field left out stays, null clears it. A new custom_domain starts a pending claim: publish domain_verification.record_value as a TXT record at record_name.' })
  @ApiOkResponse({ type: BrandingEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'domain_taken', 'domain_confusable', 'rate_limited')
  async update(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string, @Body() dto: UpdateBrandingDto): Promise<BrandingEnvelope> {
    return { branding: toBrandingBody(await this.branding.change(ownWorkspace(caller, id), caller.userId, toChanges(dto))) };
  }

  @Post('domain/verify')
  @Product()
  @MinRole('admin')
  @HttpCode(200)
  @ApiOperation({ operationId: 'verifyBrandingDomain', summary: 'Check the custom domain\'s TXT record now and answer the claim\'s status (it is also re-checked periodically).' })
  @ApiOkResponse({ type: DomainVerificationEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async verifyDomain(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string): Promise<DomainVerificationEnvelope> {
    return { domain_verification: toDomainVerificationBody(await this.branding.verifyDomain(ownWorkspace(caller, id))) };
  }

  @Post('logo')
  @Product()
  @MinRole('admin')
  @HttpCode(200)
  @UseInterceptors(AnyFilesInterceptor({ limits: { fileSize: MAX_LOGO_BYTES, files: 1, fields: 0, parts: 1 } }))
  @ApiOperation({ operationId: 'uploadBrandingLogo', summary: 'Upload the logo (PNG, JPEG or WebP by its bytes, at most 2 MiB; no SVG); served publicly at logo_url.' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: [LOGO_PART], properties: { [LOGO_PART]: { type: 'string', format: 'binary' } } } })
  @ApiOkResponse({ type: BrandingEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'payload_too_large', 'unsupported_media_type', 'rate_limited')
  async uploadLogo(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ws', 'Organization')) id: string, @UploadedFiles() files: UploadedPart[] | undefined): Promise<BrandingEnvelope> {
    const workspaceId = ownWorkspace(caller, id);
    const file = files?.[0];
    if (!file || file.fieldname !== LOGO_PART) {
      throw new AppError('validation_failed', 'Send the image in a multipart part named logo.', [{ field: LOGO_PART, message: 'one file part named logo is required' }]);
    }
    return { branding: toBrandingBody(await this.branding.uploadLogo(workspaceId, caller.userId, file.buffer)) };
  }
}
