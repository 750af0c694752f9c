/**
 * What one workspace event looks like to the AsyncAPI document: the field of the event that carries
 * its payload, and the name of the payload's schema in the OpenAPI document (the same wire body the
 * HTTP reads answer, so the two documents cannot describe it differently).
 */
export interface RealtimeEventSpec {
  field: string;
  schema: string;
  summary: string;
}

/**
 * Every event a socket can receive (contract §7). `RealtimeEvent`, and so what `publish` accepts, is
 * derived from this table: an event missing here does not type-check where it is published, and the
 * AsyncAPI document served beside the OpenAPI is generated from it.
 */
export const REALTIME_EVENTS = {
  'job.progress': { field: 'job', schema: 'JobDoc', summary: 'A job started or advanced: `job.status` is running and `job.progress` (0-100) moved.' },
  'job.completed': { field: 'job', schema: 'JobDoc', summary: 'A job finished: `job.result` holds what it made.' },
  'job.failed': { field: 'job', schema: 'JobDoc', summary: 'A job failed: `job.error` is `{code, message}`; any credits it took are refunded.' },
  'content.updated': { field: 'item', schema: 'ContentItemDoc', summary: 'A content item changed (status, media, caption, review), with its current job.' },
  'post.updated': { field: 'scheduled_post', schema: 'ScheduledPostBody', summary: 'A scheduled post changed (scheduled, rescheduled, publishing, published, failed, cancelled).' },
  'credits.low': { field: 'credits', schema: 'CreditsLowBody', summary: "The plan's credits of this period fell to 25 %, 10 % or 0 % (`credits.threshold`); once per threshold and period." },
  'webhook.endpoint_disabled': { field: 'endpoint', schema: 'WebhookEndpointBody', summary: 'A webhook endpoint was disabled: its receiver answered 410 (`endpoint.disabled_reason` gone) or every attempt failed for 3 days (failing).' },
  'conversation.message': { field: 'message', schema: 'ConversationMessageBody', summary: 'A message of a conversation was stored (from the audience, or the account itself) or a reply went out (`message.status` sent).' },
  'conversation.reply_pending': { field: 'message', schema: 'ConversationMessageBody', summary: 'A drafted reply waits for a person (`message.review_reason`: review_mode, banned_topic or paused); approve it to send it.' },
} as const satisfies Record<string, RealtimeEventSpec>;

export type RealtimeEventType = keyof typeof REALTIME_EVENTS;

type PayloadField<T extends RealtimeEventType> = (typeof REALTIME_EVENTS)[T]['field'];

/** Events a socket receives for its workspace: `{type, <field>: <wire body>}`, one member per catalogue entry. */
export type RealtimeEvent = {
  [T in RealtimeEventType]: { type: T } & { [F in PayloadField<T>]: Record<string, unknown> };
}[RealtimeEventType];

export const REALTIME_EVENT_TYPES = Object.keys(REALTIME_EVENTS) as RealtimeEventType[];
