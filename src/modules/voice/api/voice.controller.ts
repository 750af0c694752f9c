import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { AppError, pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, PageQueryDto } from '../../../platform/http/index.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { SpeechService } from '../application/speech.service.js';
import { VoiceService } from '../application/voice.service.js';
import { MAX_SAMPLE_BYTES, MAX_SAMPLES } from '../domain/voice.js';
import { AudioEnvelope, AudioJobEnvelope, ClipListDoc, toAudioBody, toClipListBody, toLibraryVoiceBody, toSettingsBody, toVoiceBody, VoiceCloneEnvelope, VoiceEnvelope, VoicesDoc, VoiceSettingsEnvelope } from './dto/voice.body.js';
import { CloneVoiceDto, GenerateSpeechDto, PreviewSpeechDto, VoiceSettingsDto } from './dto/voice.dto.js';

const CharacterId = () => new IdParam('char', 'Character');
const SAMPLE_PARTS = ['sample', 'samples'];
const UPLOAD_LIMITS = { fileSize: MAX_SAMPLE_BYTES, files: MAX_SAMPLES, fields: 10, fieldSize: 4096, parts: MAX_SAMPLES + 10 };

interface UploadedPart {
  fieldname: string;
  originalname?: string;
  buffer: Buffer;
}

/** Voices and speech (contract §11). `/influencers` answers alike. */
@ApiTags('voice')
@Controller()
export class VoiceController {
  constructor(
    private readonly voices: VoiceService,
    private readonly speech: SpeechService,
    private readonly urls: MediaUrls,
  ) {}

  @Get('voices')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listVoiceLibrary', summary: 'The provider’s premade voices and this workspace’s cloned ones.' })
  @ApiOkResponse({ type: VoicesDoc })
  @ApiErrors('unauthorized', 'session_required', 'upstream_failed')
  async library(@CurrentCaller() caller: Caller) {
    return { voices: (await this.voices.library(caller.workspaceId)).map(toLibraryVoiceBody) };
  }

  @Get(['characters/:id/voice', 'influencers/:id/voice'])
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getVoice', summary: 'The voice the character speaks with, its settings, and its clone’s status.' })
  @ApiOkResponse({ type: VoiceEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async voice(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return { voice: toVoiceBody(await this.voices.view(caller.workspaceId, id)) };
  }

  @Get(['characters/:id/voice/settings', 'influencers/:id/voice/settings'])
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getVoiceSettings', summary: 'The character’s voice settings (defaults 0.5, 0.75, 0, true).' })
  @ApiOkResponse({ type: VoiceSettingsEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async settings(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return { settings: toSettingsBody(await this.voices.view(caller.workspaceId, id)) };
  }

  @Put(['characters/:id/voice/settings', 'influencers/:id/voice/settings'])
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'updateVoiceSettings', summary: 'Change the character’s voice settings (partial); a voice_id outside the library and this workspace’s clones is 400.' })
  @ApiOkResponse({ type: VoiceSettingsEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed')
  async updateSettings(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: VoiceSettingsDto) {
    const view = await this.voices.updateSettings(caller.workspaceId, id, {
      voiceId: dto.voice_id, stability: dto.stability, similarityBoost: dto.similarity_boost, style: dto.style, useSpeakerBoost: dto.use_speaker_boost, modelId: dto.model_id,
    });
    return { settings: toSettingsBody(view) };
  }

  @Post(['characters/:id/voice-clone', 'influencers/:id/voice-clone'])
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @UseInterceptors(AnyFilesInterceptor({ limits: UPLOAD_LIMITS }))
  @ApiOperation({
    summary: 'Clone a voice (job clone_voice, 50 credits, refunded on failure) from sample_urls (JSON, fetched now) or sample/samples file parts: '
      + `MP3, WAV, OGG, FLAC, M4A or WebM by their bytes, 1-${MAX_SAMPLES}, at most 10 MiB each and 50 MiB in all. The clone becomes the character’s voice when ready.`,
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiExtraModels(CloneVoiceDto)
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(CloneVoiceDto) },
        { type: 'object', required: ['name', 'samples'], properties: { name: { type: 'string' }, samples: { type: 'array', items: { type: 'string', format: 'binary' } } } },
      ],
    },
  })
  @ApiAcceptedResponse({ type: VoiceCloneEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'payload_too_large', 'unsupported_media_type', 'invalid_state_transition', 'insufficient_credits', 'upstream_failed')
  async clone(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: CloneVoiceDto, @UploadedFiles() files: UploadedPart[] | undefined) {
    const parts = files ?? [];
    const wrong = parts.find((p) => !SAMPLE_PARTS.includes(p.fieldname));
    if (wrong) throw invalid(wrong.fieldname, 'sample file parts must be named sample or samples');
    if (parts.length > 0 && dto.sample_urls) throw invalid('sample_urls', 'send either sample files or sample_urls, not both');
    if (parts.length === 0 && !dto.sample_urls) throw invalid('sample_urls', 'sample_urls or sample file parts are required');
    const started = await this.voices.clone(caller, id, {
      name: dto.name,
      description: dto.description,
      source: parts.length > 0 ? { kind: 'upload', files: parts } : { kind: 'urls', urls: dto.sample_urls ?? [] },
      settings: { stability: dto.stability, similarityBoost: dto.similarity_boost, style: dto.style, useSpeakerBoost: dto.use_speaker_boost },
    });
    return { voice: toVoiceBody(started.voice), job: toJobBody(started.job) };
  }

  @Post(['characters/:id/voice/preview', 'influencers/:id/voice/preview'])
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Speak up to 200 characters in the character’s voice now (1 credit).' })
  @ApiCreatedResponse({ type: AudioEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'insufficient_credits', 'upstream_failed')
  async preview(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: PreviewSpeechDto) {
    return { audio: toAudioBody(await this.speech.preview(caller.workspaceId, id, dto.text), this.urls) };
  }

  @Post(['characters/:id/voice/generate', 'influencers/:id/voice/generate'])
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'generateSpeech', summary: 'Speak up to 5000 characters (job generate_speech; 1 credit per started 100 characters, refunded on failure).' })
  @ApiAcceptedResponse({ type: AudioJobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'insufficient_credits')
  async generate(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: GenerateSpeechDto) {
    const started = await this.speech.generate(caller.workspaceId, id, dto.text, dto.format ?? 'mp3');
    return { audio: toAudioBody(started.audio, this.urls), job: toJobBody(started.job) };
  }

  @Get(['characters/:id/voice/audio', 'influencers/:id/voice/audio'])
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listSpeechClips', summary: 'The character’s audio clips (previews and generations), newest first, each with a fresh signed URL once its audio exists.' })
  @ApiOkResponse({ type: ClipListDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed')
  async clips(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() query: PageQueryDto) {
    const page = await this.speech.clips(caller.workspaceId, id, pageRequest(query.page, query.page_size));
    return pageBody('clips', { ...page, items: page.items.map((clip) => toClipListBody(clip, this.urls)) });
  }

  @Get(['characters/:id/voice/audio/:audioId', 'influencers/:id/voice/audio/:audioId'])
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getSpeechClip', summary: 'One audio clip of the character (a preview or a generation) with a fresh signed URL once it exists.' })
  @ApiOkResponse({ type: AudioEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async audio(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Param('audioId', new IdParam('aud', 'Audio')) audioId: string) {
    return { audio: toAudioBody(await this.speech.clip(caller.workspaceId, id, audioId), this.urls) };
  }
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${message[0].toUpperCase()}${message.slice(1)}.`, [{ field, message }]);
}
