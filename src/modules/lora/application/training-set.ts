import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { trainingCaption, type Lora } from '../domain/lora.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';
import type { TrainingImage } from './ports/lora-trainer.js';

/** The images a training learns from, with the captions we write for them (the trigger word in each). */
@Injectable()
export class TrainingSet {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly loras: LoraRepository,
    private readonly characters: CharactersFacade,
    private readonly storage: Storage,
  ) {}

  async load(lora: Lora): Promise<TrainingImage[]> {
    const character = await this.characters.get(lora.workspaceId, lora.characterId);
    const caption = trainingCaption(lora.triggerWord, character.appearance.aesthetic);
    const records = await this.loras.listImages(this.ds.manager, lora.workspaceId, lora.characterId);
    return Promise.all(
      records.map(async (record, i) => {
        const stored = await this.storage.get(record.storageKey);
        if (!stored) throw new AppError('upstream_failed', 'A training image is missing from storage.', { image_id: record.id });
        return { name: String(i + 1).padStart(3, '0'), bytes: stored.body, contentType: record.contentType, caption };
      }),
    );
  }
}
