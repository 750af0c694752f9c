import type { TrainingState } from './lora-trainer.js';

/** A verified training event from the provider. */
export interface TrainingEvent {
  /** The delivery's id (`webhook-id`): the same across the provider's retries, so it dedupes them. */
  deliveryId: string;
  providerTrainingId: string;
  state: TrainingState;
}

/**
 * Reads a provider's training webhook: verifies its signature over the exact bytes received and its
 * timestamp, then parses the training it carries. Throws `AppError('unauthorized')` for a missing,
 * forged or stale signature (nothing is parsed then), `validation_failed` for a body that is not a
 * training.
 */
export abstract class TrainingWebhooks {
  abstract verify(headers: Readonly<Record<string, string | string[] | undefined>>, rawBody: Buffer): Promise<TrainingEvent>;
}
