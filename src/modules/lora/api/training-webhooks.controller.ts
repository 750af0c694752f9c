import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../../platform/http/index.js';
import type { Request } from 'express';
import { AppError } from '../../../core/index.js';
import { Open } from '../../../platform/auth/index.js';
import { TrainingWebhookIntake } from '../application/training-webhook-intake.js';

/** Where the route's raw-body parser is mounted (src/main.ts): the signature covers the exact bytes. */
export const TRAINING_WEBHOOK_PATH = 'webhooks/replicate/trainings';

/**
 * Replicate's training webhooks. No bearer token: the Standard Webhooks signature is the credential,
 * checked before the body is parsed; 401 for a missing, forged or stale one. Documented for the
 * operators who point Replicate at it; clients never call it.
 */
@ApiTags('webhooks')
@Controller()
export class TrainingWebhooksController {
  constructor(private readonly intake: TrainingWebhookIntake) {}

  @Post(TRAINING_WEBHOOK_PATH)
  @HttpCode(200)
  @Open({ openLimit: true })
  @ApiOperation({
    summary: 'Replicate’s training events (start, logs, completed), signed per Standard Webhooks; a delivery id seen before changes nothing. '
      + 'Called by Replicate, not by clients.',
  })
  @ApiHeader({ name: 'webhook-id', required: true })
  @ApiHeader({ name: 'webhook-timestamp', required: true, description: 'Unix seconds; at most 5 minutes off.' })
  @ApiHeader({ name: 'webhook-signature', required: true, description: 'Space-separated `v1,<base64 HMAC-SHA256>` entries.' })
  @ApiBody({ schema: { type: 'object', description: 'Replicate’s training object, up to 10 MiB.' } })
  @ApiOkResponse({ schema: { type: 'object', properties: { received: { type: 'boolean' }, applied: { type: 'boolean' } } } })
  @ApiErrors('unauthorized', 'validation_failed', 'rate_limited')
  async receive(@Req() req: Request) {
    if (!Buffer.isBuffer(req.body)) throw new AppError('validation_failed', 'The webhook body must be sent as application/json.');
    const { applied } = await this.intake.receive(req.headers, req.body);
    return { received: true, applied };
  }
}
