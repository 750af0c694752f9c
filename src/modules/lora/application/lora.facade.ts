import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import type { ImageLora } from '../../generation/index.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';

/** What other contexts may ask of LoRAs: the one a character's images are drawn with. */
@Injectable()
export class LoraFacade {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly loras: LoraRepository,
    private readonly config: AppConfig,
  ) {}

  /** The character's LoRA while it is ready, as the image generators take it; null otherwise. */
  async readyFor(workspaceId: string, characterId: string): Promise<ImageLora | null> {
    const lora = await this.loras.findReady(this.ds.manager, workspaceId, characterId);
    if (!lora) return null;
    return { id: lora.id, baseModel: lora.baseModel, triggerWord: lora.triggerWord, scale: this.config.lora.scale, weightsUrl: lora.weightsUrl, style: lora.style };
  }
}
