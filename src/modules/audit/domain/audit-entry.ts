/**
 * The audited actions (contract §14). Each is written in the transaction of the change it records,
 * so a failed change leaves no entry and a committed one always has its entry.
 */
export const AUDIT_ACTIONS = [
  'member.added',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'invitation.accepted',
  'invitation.revoked',
  'invitation.declined',
  'workspace.created',
  'workspace.updated',
  'branding.updated',
  'api_key.created',
  'api_key.revoked',
  'integration.connected',
  'integration.disconnected',
  'listing.created',
  'listing.updated',
  'listing.deleted',
  'purchase.completed',
  'lora.training_started',
  'plan.changed',
  'credits.granted',
  'billing.checkout_started',
  'billing.subscription_changed',
  'billing.pack_purchased',
  'billing.payment_failed',
  'selfhosted.routing_changed',
  'selfhosted.endpoint_added',
  'selfhosted.endpoint_changed',
  'selfhosted.endpoint_removed',
  'character.deleted',
  'content.deleted',
  'content.approved',
  'content.rejected',
  'content.media_reviewed',
  'lora.deleted',
  'voice.clone_started',
  'post.publish_requested',
  'auth.login',
  'auth.logout',
  'auth.refresh_token_reused',
  'auth.mfa_enabled',
  'auth.mfa_disabled',
  'webhook.endpoint_created',
  'webhook.endpoint_updated',
  'webhook.endpoint_deleted',
  'responder.updated',
  'conversation.replied',
  'conversation.reply_approved',
  'conversation.paused',
  'conversation.resumed',
  'webhook.secret_rotated',
  'webhook.endpoint_disabled',
  'webhook.test_sent',
  'webhook.delivery_retried',
  'link.created',
  'link.updated',
  'link.deleted',
  'revenue.recorded',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a change tells the audit log; the actor's email and the request id are filled in by it. */
export interface AuditRecord {
  workspaceId: string;
  actorUserId: string | null;
  action: AuditAction;
  targetType: string;
  targetId: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  workspaceId: string;
  actorUserId: string | null;
  actorEmail: string | null;
  action: AuditAction;
  targetType: string;
  targetId: string | null;
  details: Record<string, unknown>;
  requestId: string | null;
  createdAt: Date;
}
