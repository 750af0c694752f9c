import { Injectable } from '@nestjs/common';

/** Wakes this process's delivery loop when a delivery was queued here (it otherwise looks every WEBHOOK_POLL). */
@Injectable()
export class WebhookDeliveryWake {
  private listener?: () => void;

  onWake(listener: () => void): void {
    this.listener = listener;
  }

  /** A moment later: the delivery's transaction may commit just after. */
  soon(): void {
    if (this.listener) setTimeout(this.listener, 20).unref();
  }
}
