import { Body, Controller, Param, Post, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { AppConfig } from '../../../config/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { MAX_REFERENCE_IMAGE_BYTES, ReferenceImagesService } from '../application/reference-images.service.js';
import { ReferenceImageUploadBody, toCharacterBody, toReferenceImageBody } from './dto/character.body.js';
import { UploadReferenceImageDto } from './dto/character.dto.js';

const FILE_PARTS = ['file', 'image', 'reference_image'];

interface UploadedPart {
  fieldname: string;
  buffer: Buffer;
  size: number;
}

@ApiTags('characters')
@Controller(['characters', 'influencers'])
export class ReferenceImagesController {
  constructor(
    private readonly referenceImages: ReferenceImagesService,
    private readonly urls: MediaUrls,
    private readonly config: AppConfig,
  ) {}

  @Post(':id/reference-images')
  @Product()
  @MinRole('editor')
  @UseInterceptors(AnyFilesInterceptor({ limits: { fileSize: MAX_REFERENCE_IMAGE_BYTES, files: 1, fields: 4, fieldSize: 1024, parts: 5 } }))
  @ApiOperation({ summary: 'Upload a reference image (JPEG, PNG or WebP, at most 10 MiB); the face embedding is recomputed.' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The image; the part may also be named image or reference_image.' },
        type: { type: 'string', enum: ['primary', 'reference'] },
      },
    },
  })
  @ApiCreatedResponse({ type: ReferenceImageUploadBody })
  @ApiErrors('unauthorized', 'not_found', 'payload_too_large', 'unsupported_media_type')
  async upload(
    @CurrentCaller() caller: Caller,
    @Param('id', new IdParam('char', 'Character')) id: string,
    @Body() dto: UploadReferenceImageDto,
    @UploadedFiles() files: UploadedPart[] | undefined,
  ) {
    const file = files?.[0];
    if (!file || !FILE_PARTS.includes(file.fieldname)) {
      throw new AppError('validation_failed', 'Send one image in a multipart part named file, image or reference_image.', [
        { field: 'file', message: 'one file part named file, image or reference_image is required' },
      ]);
    }
    const result = await this.referenceImages.upload(caller.workspaceId, id, file.buffer, dto.type);
    return {
      reference_image: toReferenceImageBody(result.referenceImage, this.urls),
      character: toCharacterBody(result.character, this.urls, this.config.publishing.defaultTimezone),
      job: toJobBody(result.job),
    };
  }
}
