import { Injectable } from '@nestjs/common';
import { AppError, type OutboxEvent, type OutboxEventType } from '../../core/index.js';

/** A wire body, as a REST route answers it (snake_case JSON). */
export type EventBody = Record<string, unknown>;

/**
 * Renders the public body of some event types: the REST resource the event is about, read when the
 * event is delivered and built by the same function the resource's route uses. Answers null when the
 * resource is gone (deleted since): the event is then sent with the facts its payload carries.
 */
export interface EventBodyRenderer {
  types: readonly OutboxEventType[];
  render(event: OutboxEvent): Promise<EventBody | null>;
}

/**
 * The renderers of event bodies, registered at module init by the context that owns each resource
 * (in its api layer, where wire bodies are built). One renderer per type: a second one stops the boot.
 */
@Injectable()
export class OutboxEventBodies {
  private readonly byType = new Map<string, EventBodyRenderer>();

  register(renderer: EventBodyRenderer): void {
    for (const type of renderer.types) {
      if (this.byType.has(type)) throw new Error(`two event body renderers for "${type}"`);
      this.byType.set(type, renderer);
    }
  }

  /** Whether `type` has a renderer (checked at boot by whoever sends bodies). */
  has(type: string): boolean {
    return this.byType.has(type);
  }

  /** The body of `event`, or null when its resource is gone or no renderer knows its type. */
  async render(event: OutboxEvent): Promise<EventBody | null> {
    const renderer = this.byType.get(event.type);
    return renderer ? renderer.render(event) : null;
  }
}

/**
 * What a read answers, or null when it refuses with 404 `not_found` (the resource was deleted, or
 * is not the event's workspace's): a renderer's "gone". Any other error is thrown, so the delivery
 * is tried again rather than sent without its body.
 */
export async function unlessGone<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') return null;
    throw err;
  }
}
