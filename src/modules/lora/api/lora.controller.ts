import { Body, Controller, Delete, Get, HttpCode, Param, Post, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiCreatedResponse, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { AppError, type Caller, type Plan } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { LoraService } from '../application/lora.service.js';
import { TrainingImagesService, type TrainingImages } from '../application/training-images.service.js';
import { LORA_RANK, MAX_TRAINING_IMAGE_BYTES, MAX_TRAINING_IMAGES, TRAINING_STEPS } from '../domain/lora.js';
import { CopyTrainingImagesDto, TrainLoraDto } from './dto/lora.dto.js';
import { LoraEnvelope, LoraStatusDoc, LoraTrainedEnvelope, toLoraEnvelope, toLoraStatusBody, toTrainedBody, toTrainingImageBody, TrainingImagesDoc } from './dto/lora.body.js';

const CharacterId = () => new IdParam('char', 'Character');
const IMAGE_PARTS = ['images', 'image', 'file'];
/** Files one request may carry: uploads are held in memory, so a request holds at most 100 MiB. */
const FILES_PER_REQUEST = 10;
const UPLOAD_LIMITS = { fileSize: MAX_TRAINING_IMAGE_BYTES, files: FILES_PER_REQUEST, fields: 2, fieldSize: 256, parts: FILES_PER_REQUEST + 2 };
/** LoRA is a Pro and Agency feature (contract §3): other plans are refused 403 `plan_required` at the guard. */
const PAID: { plans: Plan[] } = { plans: ['pro', 'agency'] };

interface UploadedPart {
  fieldname: string;
  buffer: Buffer;
}

/** A character's LoRA: its training images, its training, its status (Pro and Agency). `/influencers` answers alike. */
@ApiTags('lora')
@Controller(['characters', 'influencers'])
export class LoraController {
  constructor(
    private readonly loras: LoraService,
    private readonly images: TrainingImagesService,
    private readonly urls: MediaUrls,
  ) {}

  @Get(':id/lora')
  @Product(PAID)
  @MinRole('viewer')
  @ApiOperation({ summary: 'The character’s LoRA; every field but status and image_count is null before the first training.' })
  @ApiOkResponse({ type: LoraEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return toLoraEnvelope(await this.loras.view(caller.workspaceId, id));
  }

  @Get(':id/lora/status')
  @Product(PAID)
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getLoraStatus', summary: 'The training’s status, progress and job: the cheap read to poll.' })
  @ApiOkResponse({ type: LoraStatusDoc })
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'not_found')
  async status(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return toLoraStatusBody(await this.loras.view(caller.workspaceId, id));
  }

  @Post(':id/lora/images')
  @Product(PAID)
  @MinRole('editor')
  @UseInterceptors(AnyFilesInterceptor({ limits: UPLOAD_LIMITS }))
  @ApiOperation({ operationId: 'addLoraImages',
    summary: `Add training images: up to ${FILES_PER_REQUEST} multipart file parts named images, image or file (JPEG, PNG or WebP by their bytes, at most 10 MiB each), `
      + `or JSON {"from_reference_images": true} to copy the character’s reference images. At most ${MAX_TRAINING_IMAGES} in all; frozen while a training is queued or running.`,
  })
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiExtraModels(CopyTrainingImagesDto)
  @ApiBody({
    schema: {
      oneOf: [
        { type: 'object', required: ['images'], properties: { images: { type: 'array', items: { type: 'string', format: 'binary' } } } },
        { $ref: getSchemaPath(CopyTrainingImagesDto) },
      ],
    },
  })
  @ApiCreatedResponse({ type: TrainingImagesDoc })
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'not_found', 'validation_failed', 'payload_too_large', 'unsupported_media_type', 'training_in_progress', 'training_image_limit')
  async addImages(
    @CurrentCaller() caller: Caller,
    @Param('id', CharacterId()) id: string,
    @Body() dto: CopyTrainingImagesDto,
    @UploadedFiles() files: UploadedPart[] | undefined,
  ) {
    const parts = files ?? [];
    if (parts.length > 0 && dto.from_reference_images) throw invalid('from_reference_images', 'send either image files or from_reference_images, not both');
    const wrong = parts.find((p) => !IMAGE_PARTS.includes(p.fieldname));
    if (wrong) throw invalid(wrong.fieldname, 'image file parts must be named images, image or file');
    if (parts.length === 0 && !dto.from_reference_images) throw invalid('images', 'one or more image file parts, or from_reference_images: true, are required');
    const added = parts.length > 0
      ? await this.images.upload(caller.workspaceId, id, parts.map((p) => p.buffer))
      : await this.images.copyReferenceImages(caller.workspaceId, id);
    return { images: added.added.map((i) => toTrainingImageBody(i, this.urls)), image_count: added.imageCount };
  }

  @Get(':id/lora/images')
  @Product(PAID)
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listLoraImages', summary: 'The character’s training images, oldest first.' })
  @ApiOkResponse({ type: TrainingImagesDoc })
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'not_found')
  async listImages(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return this.imagesBody(await this.images.list(caller.workspaceId, id));
  }

  @Delete(':id/lora/images/:imageId')
  @HttpCode(204)
  @Product(PAID)
  @MinRole('editor')
  @ApiOperation({ operationId: 'deleteLoraImage', summary: 'Remove one training image (not while a training is queued or running).' })
  @ApiNoContentResponse()
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'not_found', 'training_in_progress')
  async removeImage(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Param('imageId', new IdParam('limg', 'Training image')) imageId: string) {
    await this.images.remove(caller.workspaceId, id, imageId);
  }

  @Post(':id/lora/train')
  @HttpCode(202)
  @Product(PAID)
  @MinRole('editor')
  @ApiOperation({
    summary: `Train the character’s LoRA (job train_lora), charged when accepted (500 credits by default) and refunded in full if it fails. `
      + `training_steps ${TRAINING_STEPS.min}-${TRAINING_STEPS.max} (default ${TRAINING_STEPS.default}), lora_rank ${LORA_RANK.min}-${LORA_RANK.max} (default ${LORA_RANK.default}). `
      + 'Checks in order: plan 403, base model 400, a training under way 409, 10-30 images 409, credits 402.',
  })
  @ApiAcceptedResponse({ type: LoraTrainedEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'validation_failed', 'not_found', 'training_in_progress', 'insufficient_training_images', 'insufficient_credits')
  async train(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: TrainLoraDto) {
    const started = await this.loras.train(caller, id, {
      baseModel: dto.base_model,
      trainingSteps: dto.training_steps ?? TRAINING_STEPS.default,
      loraRank: dto.lora_rank ?? LORA_RANK.default,
      triggerWord: dto.trigger_word,
    });
    return toTrainedBody(started.lora, started.imageCount, started.job);
  }

  @Delete(':id/lora')
  @HttpCode(204)
  @Product(PAID)
  @MinRole('editor')
  @ApiOperation({
    summary: 'Remove the LoRA: a queued training is cancelled and refunded, a running one cancelled at the provider (not refunded); weights and training images are removed.',
  })
  @ApiNoContentResponse()
  @ApiErrors('unauthorized', 'session_required', 'plan_required', 'not_found')
  async remove(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    await this.loras.remove(caller, id);
  }

  private imagesBody(list: TrainingImages) {
    return { images: list.images.map((i) => toTrainingImageBody(i, this.urls)), image_count: list.imageCount };
  }
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${message[0].toUpperCase()}${message.slice(1)}.`, [{ field, message }]);
}
