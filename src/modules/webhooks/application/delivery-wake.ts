/**
 * The name the delivery loops are woken by (`Wakeups`) when deliveries were queued: by the fan-out,
 * a test event or a manual retry, in whichever process, so a worker sends them without waiting for
 * its next WEBHOOK_POLL.
 */
export const WEBHOOK_DELIVERY_WAKEUP = 'webhook-deliveries';
