import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../../../core/index.js';
import { Open } from '../../../platform/auth/index.js';
import { TrainingWebhookIntake } from '../application/training-webhook-intake.js';

/** Where the route's raw-body parser is mounted (src/main.ts): the signature covers the exact bytes. */
export const TRAINING_WEBHOOK_PATH = 'webhooks/replicate/trainings';

/**
 * Replicate's training webhooks. No bearer token: the Standard Webhooks signature is the credential,
 * checked before the body is parsed; 401 for a missing, forged or stale one. Not part of the
 * client API, so not in the OpenAPI document.
 */
@ApiExcludeController()
@Controller()
export class TrainingWebhooksController {
  constructor(private readonly intake: TrainingWebhookIntake) {}

  @Post(TRAINING_WEBHOOK_PATH)
  @HttpCode(200)
  @Open()
  async receive(@Req() req: Request) {
    if (!Buffer.isBuffer(req.body)) throw new AppError('validation_failed', 'The webhook body must be sent as application/json.');
    const { applied } = await this.intake.receive(req.headers, req.body);
    return { received: true, applied };
  }
}
