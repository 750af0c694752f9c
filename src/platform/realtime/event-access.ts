import { PLAN_LIMITS, type Caller, type Scope } from '../../core/index.js';
import { REALTIME_EVENT_TYPES, type RealtimeEventType } from './realtime.catalogue.js';

export type { RealtimeEventType } from './realtime.catalogue.js';

/**
 * The scopes that let an API key read what each event carries over HTTP (contract §7): any one of
 * them is enough. A session reads everything of its workspace.
 */
export const EVENT_READ_SCOPES: Readonly<Record<RealtimeEventType, readonly Scope[]>> = {
  'job.progress': ['content:generate', 'content:read'],
  'job.completed': ['content:generate', 'content:read'],
  'job.failed': ['content:generate', 'content:read'],
  'content.updated': ['content:read'],
  'post.updated': ['content:publish'],
  'credits.low': ['credits:read'],
  // Webhook endpoints are managed with sessions only: no API key scope reads them.
  'webhook.endpoint_disabled': [],
  // Conversations are read on product routes only (sessions): no API key scope reads them.
  'conversation.message': [],
  'conversation.reply_pending': [],
};

const ALL_EVENTS: ReadonlySet<RealtimeEventType> = new Set(REALTIME_EVENT_TYPES);

/** Why a credential may not hold a socket, as the `auth.error` code says it. */
export const SOCKET_REFUSALS = ['unauthorized', 'plan_required', 'insufficient_scope'] as const;
export type SocketRefusal = (typeof SOCKET_REFUSALS)[number];

export type SocketAccess = { ok: true; events: ReadonlySet<RealtimeEventType> } | { ok: false; code: SocketRefusal };

/**
 * What a caller's socket may receive, by the same rules as HTTP: a session gets every event of its
 * workspace; an API key needs a plan with API access (`plan_required`, as `/public/*` answers) and
 * gets the events its scopes could read, refused with `insufficient_scope` when that is none.
 */
export function socketAccess(caller: Caller): SocketAccess {
  if (caller.kind === 'session') return { ok: true, events: ALL_EVENTS };
  if (!PLAN_LIMITS[caller.plan].publicApi) return { ok: false, code: 'plan_required' };
  const events = new Set<RealtimeEventType>();
  for (const type of ALL_EVENTS) {
    if (EVENT_READ_SCOPES[type].some((scope) => caller.scopes.includes(scope))) events.add(type);
  }
  return events.size > 0 ? { ok: true, events } : { ok: false, code: 'insufficient_scope' };
}
