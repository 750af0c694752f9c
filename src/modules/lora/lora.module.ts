import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { BillingModule } from '../billing/index.js';
import { CharactersModule } from '../characters/index.js';
import { LoraController } from './api/lora.controller.js';
import { TrainingWebhooksController } from './api/training-webhooks.controller.js';
import { LoraFacade } from './application/lora.facade.js';
import { LoraFiles } from './application/lora-files.js';
import { LoraEventBodies } from './api/lora-event-bodies.js';
import { LoraService } from './application/lora.service.js';
import { LoraTrainer } from './application/ports/lora-trainer.js';
import { TrainingWebhooks } from './application/ports/training-webhooks.js';
import { TrainLoraJob } from './application/train-lora.job.js';
import { TrainingImagesService } from './application/training-images.service.js';
import { TrainingOutcomes } from './application/training-outcomes.js';
import { TrainingSet } from './application/training-set.js';
import { TrainingWebhookIntake } from './application/training-webhook-intake.js';
import { LocalLoraTrainer } from './infrastructure/local/local-trainer.js';
import { LoraRepository } from './infrastructure/lora.repository.js';
import { ReplicateLoraTrainer } from './infrastructure/replicate/replicate-trainer.js';
import { ReplicateTrainingWebhooks } from './infrastructure/replicate/replicate-webhooks.js';
import { LoraDataContributor } from './infrastructure/lora-data.contributor.js';

/** LORA_PROVIDER picks the trainer: Replicate's trainings API, or the offline style-vector trainer. */
export function loraTrainerFor(config: AppConfig): LoraTrainer {
  const p = config.providers;
  const l = config.lora;
  if (l.provider === 'local') return new LocalLoraTrainer();
  return new ReplicateLoraTrainer({
    baseUrl: p.replicateUrl,
    token: p.replicateToken,
    timeoutMs: p.timeoutMs,
    trainers: l.trainers,
    destinationOwner: l.destinationOwner,
    webhookUrl: l.webhookUrl,
  });
}

/** Replicate's webhooks are verified whichever trainer runs: without a secret or a token, none verifies. */
export function trainingWebhooksFor(config: AppConfig): TrainingWebhooks {
  return new ReplicateTrainingWebhooks({ baseUrl: config.providers.replicateUrl, token: config.providers.replicateToken, secret: config.lora.webhookSecret });
}

/** LoRA training (contract §10): images, the train_lora job, webhooks; other contexts use `LoraFacade`. */
@Module({
  imports: [BillingModule, CharactersModule],
  controllers: [LoraController, TrainingWebhooksController],
  providers: [LoraDataContributor,
    LoraRepository,
    LoraService,
    TrainingImagesService,
    TrainingOutcomes,
    TrainingSet,
    TrainingWebhookIntake,
    TrainLoraJob,
    LoraFiles,
    LoraFacade,
    LoraEventBodies,
    { provide: LoraTrainer, inject: [AppConfig], useFactory: loraTrainerFor },
    { provide: TrainingWebhooks, inject: [AppConfig], useFactory: trainingWebhooksFor },
  ],
  exports: [LoraFacade],
})
export class LoraModule {}
