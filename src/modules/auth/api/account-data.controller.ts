import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { AccountDeletionService } from '../application/data-rights/account-deletion.service.js';
import { AccountExportsService } from '../application/data-rights/account-exports.service.js';
import { DeleteAccountDto, DeletionView, deletionBody, exportBody, ExportResponseView, RequestExportDto } from './dto/data-rights.dto.js';

const ExportId = new IdParam('exp', 'Export');

/** A refusal that says when to come back carries Retry-After too. */
function withRetryAfter(res: Response, err: unknown): never {
  const details = err instanceof AppError ? (err.details as { retry_after?: number } | undefined) : undefined;
  if (details?.retry_after) res.setHeader('Retry-After', String(details.retry_after));
  throw err;
}

/**
 * These routes take JSON only (415 otherwise), never what a cross-site form can send, though the
 * service parses form bodies elsewhere. `optional`: an empty body is fine too.
 */
function assertJson(req: Request, optional: boolean): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if ((hasBody || !optional) && !req.is('application/json')) {
    throw new AppError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json).');
  }
}

/** Data rights: an export of the workspace, and the account's deletion. */
@ApiTags('auth')
@Controller('auth')
export class AccountDataController {
  constructor(
    private readonly exports: AccountExportsService,
    private readonly deletion: AccountDeletionService,
  ) {}

  @Post('export')
  @Product()
  @MinRole('owner')
  @HttpCode(202)
  @ApiOperation({ operationId: 'requestAccountExport', summary: 'Start a ZIP export of everything the current workspace holds (3 a day); mailed when ready.' })
  @ApiAcceptedResponse({ type: ExportResponseView })
  @ApiErrors('unauthorized', 'session_required', 'insufficient_role', 'unsupported_media_type', 'validation_failed', 'rate_limited')
  async requestExport(@CurrentCaller() caller: Caller, @Body() _body: RequestExportDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    assertJson(req, true);
    return exportBody(await this.exports.request(caller).catch((err: unknown) => withRetryAfter(res, err)));
  }

  @Get('exports/:id')
  @Product()
  @MinRole('owner')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'getAccountExport', summary: 'An export’s status and, once ready, its signed download URL (valid until `expires_at`).' })
  @ApiOkResponse({ type: ExportResponseView })
  @ApiErrors('unauthorized', 'session_required', 'insufficient_role', 'not_found', 'export_expired', 'rate_limited')
  async getExport(@CurrentCaller() caller: Caller, @Param('id', ExportId) id: string) {
    return exportBody(await this.exports.get(caller, id));
  }

  @Delete('account')
  @Product()
  @MinRole('viewer')
  @HttpCode(202)
  @ApiOperation({ summary: 'Schedule the account’s deletion (and of the workspaces it alone is in) after the grace period; signs out everywhere. Signing in cancels it.' })
  @ApiAcceptedResponse({ type: DeletionView })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'unsupported_media_type', 'invalid_credentials', 'workspace_has_members', 'rate_limited')
  async deleteAccount(@CurrentCaller() caller: Caller, @Body() dto: DeleteAccountDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    assertJson(req, false);
    return deletionBody(await this.deletion.schedule(caller, dto.password).catch((err: unknown) => withRetryAfter(res, err)));
  }
}
