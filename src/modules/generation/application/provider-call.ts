import { Logger } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import { isOutageError } from '../../../platform/health/index.js';

const logger = new Logger('Generation');
const LABEL = { image: 'image', text: 'text', video: 'video', speech: 'speech', 'talking-head': 'talking-head' } as const;

/**
 * Calls a provider port. Adapters fail with a readable `upstream_failed`; anything else they throw
 * is a bug or an unexpected condition, logged in full and shown as a plain provider failure. An
 * outage of our own dependencies met on the way (the self-hosted router keeps its state in Redis)
 * passes through untouched: the job runner runs such a job again once the outage is over, where a
 * provider failure would fail it.
 */
export async function callProvider<T>(kind: keyof typeof LABEL, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError || isOutageError(err)) throw err;
    logger.error({ msg: 'provider call threw', provider: kind, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) });
    throw new AppError('upstream_failed', `The ${LABEL[kind]} provider failed unexpectedly.`, { provider: kind });
  }
}
