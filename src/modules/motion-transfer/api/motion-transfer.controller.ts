import { Body, Controller, Get, HttpCode, Param, Post, Query, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { AppError, pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, PageQueryDto } from '../../../platform/http/index.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import type { MotionSourceInput, MotionTransferWithJob } from '../application/motion-transfer.service.js';
import { MotionTransferService } from '../application/motion-transfer.service.js';
import { MAX_REFERENCE_VIDEO_BYTES } from '../domain/motion-transfer.js';
import { MotionTransferEnvelope, MotionTransferListBody, MotionTransferStartedBody, toMotionTransferBody } from './dto/motion-transfer.body.js';
import { StartMotionTransferDto } from './dto/start-motion-transfer.dto.js';

const CharacterId = () => new IdParam('char', 'Character');
const VIDEO_PART = 'video';
const UPLOAD_LIMITS = { fileSize: MAX_REFERENCE_VIDEO_BYTES, files: 1, fields: 8, fieldSize: 4096, parts: 9 };

interface UploadedPart {
  fieldname: string;
  buffer: Buffer;
}

/** Motion transfer: a character's look on the motion of a reference video. `/influencers` answers alike. */
@ApiTags('motion-transfer')
@Controller(['characters', 'influencers'])
export class MotionTransferController {
  constructor(
    private readonly transfers: MotionTransferService,
    private readonly urls: MediaUrls,
  ) {}

  @Post(':id/motion-transfer')
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @UseInterceptors(AnyFilesInterceptor({ limits: UPLOAD_LIMITS }))
  @ApiOperation({
    summary: 'Start a motion transfer from a video URL (JSON) or an uploaded `video` file (multipart). '
      + 'Charged when accepted: credits_per_five_seconds for every started five seconds (default 10 s, 9:16). '
      + 'Needs an uploaded primary reference image.',
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiExtraModels(StartMotionTransferDto)
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(StartMotionTransferDto) },
        {
          type: 'object',
          required: ['video'],
          properties: {
            video: { type: 'string', format: 'binary', description: 'MP4, MOV or WebM by its bytes, at most 100 MiB.' },
            duration_seconds: { type: 'integer', minimum: 5, maximum: 60 },
            aspect_ratio: { type: 'string', enum: ['9:16', '1:1', '16:9'] },
          },
        },
      ],
    },
  })
  @ApiAcceptedResponse({ type: MotionTransferStartedBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition', 'insufficient_credits', 'payload_too_large', 'unsupported_media_type')
  async start(
    @CurrentCaller() caller: Caller,
    @Param('id', CharacterId()) id: string,
    @Body() dto: StartMotionTransferDto,
    @UploadedFiles() files: UploadedPart[] | undefined,
  ) {
    const source = sourceOf(dto, files);
    const started = await this.transfers.start(caller.workspaceId, id, { source, durationSeconds: dto.duration_seconds, aspectRatio: dto.aspect_ratio });
    return {
      ...envelope(started, this.urls),
      pricing: { credits_per_five_seconds: started.pricing.creditsPerFiveSeconds, estimated_credits: started.pricing.estimatedCredits },
    };
  }

  @Get(':id/motion-transfer/:jobId')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'One motion transfer of the character and its job; the path takes its mt_ id or its job_ id.' })
  @ApiOkResponse({ type: MotionTransferEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Param('jobId') ref: string) {
    return envelope(await this.transfers.get(caller.workspaceId, id, ref), this.urls);
  }

  @Get(':id/motion-transfers')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listMotionTransfers', summary: 'The character’s motion transfers, newest first.' })
  @ApiOkResponse({ type: MotionTransferListBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async list(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() query: PageQueryDto) {
    const page = await this.transfers.list(caller.workspaceId, id, pageRequest(query.page, query.page_size));
    return pageBody('motion_transfers', { ...page, items: page.items.map((mt) => toMotionTransferBody(mt, this.urls)) });
  }
}

function envelope(r: MotionTransferWithJob, urls: MediaUrls): { motion_transfer: Record<string, unknown>; job: Record<string, unknown> } {
  return { motion_transfer: toMotionTransferBody(r.motionTransfer, urls), job: { ...toJobBody(r.job, urls) } };
}

/** Exactly one source: a URL in the body, or one file part named `video`. */
function sourceOf(dto: StartMotionTransferDto, files: UploadedPart[] | undefined): MotionSourceInput {
  const file = files?.[0];
  if (file && file.fieldname !== VIDEO_PART) throw invalid('video', 'the file part must be named video');
  if (file && dto.reference_video_url !== undefined) throw invalid('reference_video_url', 'send either reference_video_url or a video file, not both');
  if (file) return { kind: 'upload', bytes: file.buffer };
  if (dto.reference_video_url === undefined) throw invalid('reference_video_url', 'reference_video_url or a video file part is required');
  return { kind: 'url', url: dto.reference_video_url };
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${message[0].toUpperCase()}${message.slice(1)}.`, [{ field, message }]);
}
