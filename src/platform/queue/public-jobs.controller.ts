import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, type Caller } from '../../core/index.js';
import { CurrentCaller, MinRole, PublicApi } from '../auth/index.js';
import { ApiErrors, IdParam, JobEnvelopeDoc } from '../http/index.js';
import { MediaUrls } from '../storage/index.js';
import { toJobBody, type JobBody } from './job-body.js';
import { JobsService } from './jobs.service.js';

/** A job on the agency public API: what `POST /public/generate` answered, followed with an API key. */
@ApiTags('public')
@Controller('public/jobs')
export class PublicJobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly urls: MediaUrls,
  ) {}

  @Get(':id')
  @PublicApi('content:read')
  @MinRole('viewer')
  @ApiOperation({ summary: 'Read a job (as GET /jobs/{id}): status, progress, result (with the URLs of what it made) or error.' })
  @ApiOkResponse({ type: JobEnvelopeDoc })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', new IdParam('job', 'Job')) id: string): Promise<{ job: JobBody }> {
    const job = await this.jobs.get(caller.workspaceId, id);
    if (!job) throw AppError.notFound('Job');
    return { job: toJobBody(job, this.urls) };
  }
}
