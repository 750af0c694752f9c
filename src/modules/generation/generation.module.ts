import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { ImageGeneratorSeam } from './application/image-routing.js';
import { ImageGenerator, SpeechGenerator, TalkingHeadGenerator, TextGenerator, VideoGenerator } from './application/ports/index.js';
import {
  DidClient,
  DidTalkingHeadGenerator,
  ElevenLabsClient,
  ElevenLabsSpeechGenerator,
  LocalImageGenerator,
  LocalSpeechGenerator,
  LocalTalkingHeadGenerator,
  LocalTextGenerator,
  LocalVideoGenerator,
  OpenAiTextGenerator,
  ReplicateClient,
  ReplicateImageGenerator,
  ReplicateVideoGenerator,
} from './infrastructure/providers/index.js';

export function replicateClientFor(config: AppConfig): ReplicateClient {
  const p = config.providers;
  return new ReplicateClient({ baseUrl: p.replicateUrl, token: p.replicateToken, timeoutMs: p.timeoutMs, maxDownloadBytes: p.maxDownloadBytes });
}

export function imageGeneratorFor(config: AppConfig): ImageGenerator {
  return config.providers.media === 'replicate'
    ? new ReplicateImageGenerator(replicateClientFor(config), config.providers.replicateImageModel, config.lora.imageModels)
    : new LocalImageGenerator();
}

export function videoGeneratorFor(config: AppConfig): VideoGenerator {
  const p = config.providers;
  return p.media === 'replicate' ? new ReplicateVideoGenerator(replicateClientFor(config), p.replicateVideoModel, p.replicateMotionModel) : new LocalVideoGenerator();
}

export function textGeneratorFor(config: AppConfig): TextGenerator {
  const p = config.providers;
  return p.text === 'openai' ? new OpenAiTextGenerator({ baseUrl: p.openaiUrl, apiKey: p.openaiKey, model: p.openaiModel, timeoutMs: p.timeoutMs }) : new LocalTextGenerator();
}

/** VOICE_PROVIDER: ElevenLabs (one client per process, so its concurrency cap holds) or eSpeak NG offline. */
export function speechGeneratorFor(config: AppConfig): SpeechGenerator {
  const v = config.voice;
  if (v.provider === 'local') return new LocalSpeechGenerator();
  const client = new ElevenLabsClient({ baseUrl: v.elevenlabsUrl, apiKey: v.elevenlabsKey, concurrency: v.concurrency, timeoutMs: v.timeoutMs });
  return new ElevenLabsSpeechGenerator(client, { defaultModelId: v.defaultModelId });
}

/** TALKING_HEAD_PROVIDER: D-ID's talks API, or the bundled ffmpeg offline. */
export function talkingHeadGeneratorFor(config: AppConfig): TalkingHeadGenerator {
  const t = config.talkingHead;
  if (t.provider === 'local') return new LocalTalkingHeadGenerator({ timeoutMs: t.timeoutMs });
  const client = new DidClient({ baseUrl: t.didUrl, apiKey: t.didKey, timeoutMs: t.timeoutMs, maxDownloadBytes: config.providers.maxDownloadBytes });
  return new DidTalkingHeadGenerator(client);
}

/**
 * The generation ports, bound by configuration: MEDIA_PROVIDER picks Replicate or the local
 * renderers for images and video, TEXT_PROVIDER an OpenAI-compatible server or templates. Images
 * go through `ImageGeneratorSeam`, where a router may take a job elsewhere.
 */
@Module({
  providers: [
    { provide: ImageGeneratorSeam, inject: [AppConfig], useFactory: (config: AppConfig) => new ImageGeneratorSeam(imageGeneratorFor(config)) },
    { provide: ImageGenerator, useExisting: ImageGeneratorSeam },
    { provide: VideoGenerator, inject: [AppConfig], useFactory: videoGeneratorFor },
    { provide: TextGenerator, inject: [AppConfig], useFactory: textGeneratorFor },
    { provide: SpeechGenerator, inject: [AppConfig], useFactory: speechGeneratorFor },
    { provide: TalkingHeadGenerator, inject: [AppConfig], useFactory: talkingHeadGeneratorFor },
  ],
  exports: [ImageGenerator, ImageGeneratorSeam, VideoGenerator, TextGenerator, SpeechGenerator, TalkingHeadGenerator],
})
export class GenerationModule {}
