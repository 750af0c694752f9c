import { describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, ConfigModule } from '../../config/index.js';
import { ImageGeneratorSeam } from './application/image-routing.js';
import { ImageGenerator, TextGenerator, VideoGenerator } from './application/ports/index.js';
import {
  LocalImageGenerator,
  LocalTextGenerator,
  LocalVideoGenerator,
  OpenAiTextGenerator,
  ReplicateImageGenerator,
  ReplicateVideoGenerator,
} from './infrastructure/providers/index.js';
import { GenerationModule } from './generation.module.js';

const SECRETS = { JWT_SECRET: 'x'.repeat(40), TOKEN_ENCRYPTION_KEY: 'y'.repeat(40) };

/** Boots the module as the app would, with a configuration from `env`, and answers the bound ports. */
async function ports(env: Record<string, string>) {
  @Module({ imports: [ConfigModule.forRoot(new AppConfig({ ...SECRETS, ...env })), GenerationModule] })
  class Root {}
  const app = await NestFactory.createApplicationContext(Root, { logger: false });
  const seam = app.get(ImageGenerator);
  expect(seam).toBeInstanceOf(ImageGeneratorSeam);
  const bound = { image: (seam as ImageGeneratorSeam).configured, video: app.get(VideoGenerator), text: app.get(TextGenerator) };
  await app.close();
  return bound;
}

describe('GenerationModule', () => {
  it('binds the local adapters by default', async () => {
    const { image, video, text } = await ports({});
    expect(image).toBeInstanceOf(LocalImageGenerator);
    expect(video).toBeInstanceOf(LocalVideoGenerator);
    expect(text).toBeInstanceOf(LocalTextGenerator);
  });

  it('binds Replicate and the OpenAI-compatible adapter when configured', async () => {
    const { image, video, text } = await ports({ MEDIA_PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8', TEXT_PROVIDER: 'openai', OPENAI_API_KEY: 'sk' });
    expect(image).toBeInstanceOf(ReplicateImageGenerator);
    expect(video).toBeInstanceOf(ReplicateVideoGenerator);
    expect(text).toBeInstanceOf(OpenAiTextGenerator);
  });

  it('mixes: Replicate media with local text', async () => {
    const { image, text } = await ports({ MEDIA_PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8' });
    expect(image).toBeInstanceOf(ReplicateImageGenerator);
    expect(text).toBeInstanceOf(LocalTextGenerator);
  });
});
