import { Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { configureMediaTools } from './ffmpeg.js';

/**
 * Chooses ffmpeg and ffprobe once per process, before it serves or runs jobs, and says in the
 * log which copies decode uploads: an old bundled one is a warning the operator should act on.
 */
@Injectable()
export class MediaToolsStartup implements OnApplicationBootstrap {
  private readonly logger = new Logger('MediaTools');

  constructor(private readonly config: AppConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    const selections = await configureMediaTools(this.config.mediaTools);
    for (const { choice, warnings } of selections) {
      if (choice) this.logger.log({ msg: 'media tool chosen', tool: choice.tool, path: choice.path, source: choice.source, version: choice.version });
      for (const warning of warnings) this.logger.warn(warning);
    }
  }
}

@Module({ providers: [MediaToolsStartup] })
export class MediaModule {}
