import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, pageBody, pageRequest, type Caller } from '../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../auth/index.js';
import { ApiErrors, IdParam, JobEnvelopeDoc, JobListDoc } from '../http/index.js';
import { MediaUrls } from '../storage/index.js';
import { JOB_TYPES } from './handler-registry.js';
import { toJobBody, type JobBody } from './job-body.js';
import { JobList } from './job-list.js';
import { JobsService } from './jobs.service.js';
import { JobsQueryDto, toJobsQuery } from './jobs-query.dto.js';

@ApiTags('jobs')
@Controller('jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly list: JobList,
    private readonly urls: MediaUrls,
    @Inject(JOB_TYPES) private readonly jobTypes: readonly string[],
  ) {}

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'The workspace’s jobs, newest first; filter by status (comma list), type and character_id.' })
  @ApiOkResponse({ type: JobListDoc })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed')
  async index(@CurrentCaller() caller: Caller, @Query() q: JobsQueryDto) {
    const page = await this.list.page(caller.workspaceId, toJobsQuery(q, this.jobTypes), pageRequest(q.page, q.page_size));
    return pageBody('jobs', { ...page, items: page.items.map((j) => toJobBody(j, this.urls)) });
  }

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'A job of the caller’s workspace: status, progress, result (with the URLs of what it made) or error.' })
  @ApiOkResponse({ type: JobEnvelopeDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', new IdParam('job', 'Job')) id: string): Promise<{ job: JobBody }> {
    const job = await this.jobs.get(caller.workspaceId, id);
    if (!job) throw AppError.notFound('Job');
    return { job: toJobBody(job, this.urls) };
  }
}
