import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';
import { TrainingWebhooks } from './ports/training-webhooks.js';
import { TrainingOutcomes } from './training-outcomes.js';

/**
 * A provider's training webhook: verified over the exact bytes before anything is parsed, then
 * applied through the same transitions the waiting job's polls use. A retried delivery, or one for
 * a training we no longer have (deleted, or superseded by a newer one), is answered as received and
 * changes nothing, so the provider stops retrying.
 */
@Injectable()
export class TrainingWebhookIntake {
  private readonly logger = new Logger('LoraWebhooks');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly webhooks: TrainingWebhooks,
    private readonly loras: LoraRepository,
    private readonly outcomes: TrainingOutcomes,
  ) {}

  async receive(headers: Readonly<Record<string, string | string[] | undefined>>, rawBody: Buffer): Promise<{ applied: boolean }> {
    const event = await this.webhooks.verify(headers, rawBody).catch((err: unknown) => {
      if (err instanceof AppError) this.logger.warn({ msg: 'training webhook refused', code: err.code, reason: err.message, webhook_id: String(headers['webhook-id'] ?? '').slice(0, 100) });
      throw err;
    });
    const lora = await this.loras.findByProviderTraining(this.ds.manager, 'replicate', event.providerTrainingId);
    if (!lora) {
      this.logger.log({ msg: 'training webhook for an unknown training', provider_training_id: event.providerTrainingId, webhook_id: event.deliveryId });
      return { applied: false };
    }
    const applied = await this.outcomes.apply(lora, event.state, event.deliveryId);
    this.logger.log({ msg: 'training webhook', lora_id: lora.id, provider_training_id: event.providerTrainingId, status: event.state.status, webhook_id: event.deliveryId, applied });
    return { applied };
  }
}
