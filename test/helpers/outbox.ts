import { api, loginAdmin, setPlan, type TestUser } from './api.js';
import { sql } from './database.js';
import type { Backing, TestServer } from './server.js';

/** An outbox event as recorded: what the webhooks fan out (docs/events.md). */
export interface RecordedEvent {
  type: string;
  workspace_id: string | null;
  payload: Record<string, unknown>;
}

/** The outbox events whose payload has `key` = `value`, oldest first. */
export function recordedEvents(backing: Backing, key: string, value: string): Promise<RecordedEvent[]> {
  return sql<RecordedEvent>(backing, `SELECT type, workspace_id, payload FROM outbox_events WHERE payload->>$1 = $2 ORDER BY occurred_at, id`, [key, value]);
}

/**
 * Gives `user`'s workspace a webhook endpoint taking every event type (Agency plan, set by the
 * admin), so its customer events are written to the outbox: an event no endpoint takes is not
 * written at all (docs/events.md). The endpoint's address never answers; deliveries just retry.
 * The server must allow 127.0.0.1 (OUTBOUND_ALLOW_HOSTS).
 */
export async function takeEveryEvent(server: TestServer, user: TestUser): Promise<void> {
  await setPlan(server, await loginAdmin(server), user.workspace.id, 'agency');
  const res = await api(server).post('/webhooks/endpoints').set(user.auth).send({ url: 'http://127.0.0.1:9/events', event_types: ['*'] });
  if (res.status !== 201) throw new Error(`endpoint not made: ${res.status} ${JSON.stringify(res.body)}`);
}
