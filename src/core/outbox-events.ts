/**
 * Facts that leave the process through the outbox (mail, outbound webhooks, alerts): each event
 * type and its payload. Payloads are plain JSON and carry no secret; a one-time secret a message
 * needs (a link's token) travels in the event's `secret`, stored sealed and dropped once delivered.
 */
export interface OutboxEventPayloads {
  /** secret: the verification token. */
  'account.email_verification_requested': { userId: string; email: string };
  /** secret: the token that confirms the new address (the message goes to `newEmail`). */
  'account.email_change_requested': { userId: string; newEmail: string };
  /** A notice to the old address once the change took effect. */
  'account.email_changed': { userId: string; oldEmail: string; newEmail: string };
  /** secret: the reset token. */
  'account.password_reset_requested': { userId: string; email: string };
  'account.password_changed': { userId: string; email: string };
  /** Sent only to users who asked for sign-in alerts. `ipPrefix`: the address's /24 (IPv4) or /48 (IPv6). */
  'account.new_sign_in': { userId: string; email: string; device: string; ipPrefix: string | null; at: string };
  'account.export_ready': { userId: string; email: string; exportId: string; expiresAt: string };
  'account.deletion_scheduled': { userId: string; email: string; purgeAt: string };
  /** secret: the invitation token. */
  'organisation.invitation_created': { invitationId: string; email: string; role: string; inviterName: string; workspaceName: string };
  /** A verified payment-provider event to act on (billing re-reads its object from the provider). Internal. */
  'billing.provider_event': { eventId: string; eventType: string; objectType: 'checkout.session' | 'subscription' | 'invoice' | 'other'; objectId: string };
  /** The allocation's remaining credits fell to `threshold` % (25, 10, 0) of this period's grant. Mail goes to the owners. */
  'credits.low': { threshold: number; remaining: number; granted: number; balance: number; resetsAt: string | null };
  /** A subscription payment failed; the provider retries it. `hostedUrl`: where to pay. Mail goes to the owners. */
  'billing.payment_failed': { invoiceId: string; amount: number; currency: string; hostedUrl: string | null; plan: string };
  /** A message from the audience was stored: the responder decides whether and how to answer it. Internal. */
  'engagement.message_received': { messageId: string };
  /** A reply may go out now (its `availableAt` is its send time). Internal; sent once, however often delivered. */
  'engagement.reply_due': { messageId: string; conversationId: string };

  // Facts customers receive as outbound webhooks (WEBHOOK_EVENT_TYPES; docs/events.md). The payload names the
  // resource; its webhook body is the REST resource as it reads when the event is fanned out.
  /** A job reached `completed` (GET /jobs/{id}). */
  'job.completed': { jobId: string; jobType: string };
  /** A job reached `failed` (GET /jobs/{id}); its refund is in the same transaction. */
  'job.failed': { jobId: string; jobType: string };
  /** A content item finished generating and awaits review (GET /content/{id}). */
  'content.ready': { contentId: string; characterId: string };
  /** A content item was approved (GET /content/{id}). */
  'content.approved': { contentId: string; characterId: string };
  /** A scheduled post went out (GET /schedule/{id}). */
  'post.published': { postId: string; platform: string };
  /** A scheduled post failed for good (GET /schedule/{id}). */
  'post.failed': { postId: string; platform: string };
  /** A character's LoRA finished training (its LoRA resource). */
  'lora.ready': { characterId: string };
  /** A character's LoRA training failed (its LoRA resource). */
  'lora.failed': { characterId: string };
  /** A character's cloned voice is ready (its voice resource). */
  'voice.ready': { characterId: string };
  /** A user joined the workspace (the member resource). */
  'member.added': { userId: string; role: string };
  /** A user left or was removed (the member as it was: the resource is gone, so the payload keeps it). */
  'member.removed': { userId: string; role: string; email: string; displayName: string; joinedAt: string };
}

/** The events a workspace can subscribe a webhook endpoint to, in the order the docs list them. */
export const WEBHOOK_EVENT_TYPES = [
  'job.completed',
  'job.failed',
  'content.ready',
  'content.approved',
  'post.published',
  'post.failed',
  'lora.ready',
  'lora.failed',
  'voice.ready',
  'credits.low',
  'member.added',
  'member.removed',
] as const satisfies readonly (keyof OutboxEventPayloads)[];

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export type OutboxEventType = keyof OutboxEventPayloads;

/** An event as its producer records it. `workspaceId`: where it happened (branding, tenant), null when nowhere. */
export interface NewOutboxEvent<T extends OutboxEventType = OutboxEventType> {
  type: T;
  workspaceId: string | null;
  payload: OutboxEventPayloads[T];
  secret?: string;
  /** Not delivered before this time (a reply's delay); at once when absent. Only `Outbox.record` takes it. */
  availableAt?: Date;
}

/** An event as a subscriber receives it. */
export type OutboxEvent<T extends OutboxEventType = OutboxEventType> = {
  [K in T]: NewOutboxEvent<K> & { id: string; occurredAt: Date };
}[T];
