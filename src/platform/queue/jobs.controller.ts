import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, type Caller } from '../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../auth/index.js';
import { ApiErrors, IdParam } from '../http/index.js';
import { toJobBody, type JobBody } from './job-body.js';
import { JobsService } from './jobs.service.js';

@ApiTags('jobs')
@Controller('jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'A job of the caller’s workspace: status, progress, result or error.' })
  @ApiOkResponse({ description: '{job}' })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', new IdParam('job', 'Job')) id: string): Promise<{ job: JobBody }> {
    const job = await this.jobs.get(caller.workspaceId, id);
    if (!job) throw AppError.notFound('Job');
    return { job: toJobBody(job) };
  }
}
