import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
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
  @ApiOperation({ summary: 'Start a ZIP export of everything the current workspace holds (3 a day); mailed when ready.' })
  @ApiAcceptedResponse({ type: ExportResponseView })
  @ApiErrors('unauthorized', 'session_required', 'insufficient_role', 'rate_limited')
  async requestExport(@CurrentCaller() caller: Caller, @Body() _body: RequestExportDto, @Res({ passthrough: true }) res: Response) {
    return exportBody(await this.exports.request(caller).catch((err: unknown) => withRetryAfter(res, err)));
  }

  @Get('exports/:id')
  @Product()
  @MinRole('owner')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'An export’s status and, once ready, its signed download URL (valid until `expires_at`).' })
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
  @ApiErrors('unauthorized', 'session_required', 'invalid_credentials', 'workspace_has_members', 'rate_limited')
  async deleteAccount(@CurrentCaller() caller: Caller, @Body() dto: DeleteAccountDto, @Res({ passthrough: true }) res: Response) {
    return deletionBody(await this.deletion.schedule(caller, dto.password).catch((err: unknown) => withRetryAfter(res, err)));
  }
}
