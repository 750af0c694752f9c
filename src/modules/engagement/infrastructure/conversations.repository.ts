import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId, offsetOf, type Page, type PageRequest, type Platform } from '../../../core/index.js';
import { changedRows, insertedRows, type ComposedStatement, type SqlParams, type Tx } from '../../../platform/database/index.js';
import type { Conversation, ConversationMessage, ConversationStatus, MessageOrigin, MessageStatus } from '../domain/conversation.js';
import type { Channel, InboundMessage } from '../domain/inbound.js';
import type { ReviewReason } from '../domain/responder.js';

interface ConversationRow {
  id: string;
  workspace_id: string;
  character_id: string;
  platform: Platform;
  platform_user_id: string;
  platform_user_name: string;
  status: ConversationStatus;
  last_message_at: Date;
  created_at: Date;
  updated_at: Date;
}

interface MessageRow {
  id: string;
  conversation_id: string;
  character_id: string;
  platform: Platform;
  direction: 'inbound' | 'outbound';
  channel: Channel;
  origin: MessageOrigin;
  text: string;
  status: MessageStatus;
  platform_message_id: string | null;
  remote_post_id: string | null;
  reply_to_id: string | null;
  review_reason: ReviewReason | null;
  author_user_id: string | null;
  send_at: Date | null;
  claimed_at: Date | null;
  sent_at: Date | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
}

const MESSAGE_COLUMNS = `id, conversation_id, character_id, platform, direction, channel, origin, text, status, platform_message_id, remote_post_id,
  reply_to_id, review_reason, author_user_id, send_at, claimed_at, sent_at, error_code, error_message, created_at`;

/** The message columns of `conversation_messages m`, for statements that join it. */
const M_MESSAGE_COLUMNS = MESSAGE_COLUMNS.split(',').map((c) => `m.${c.trim()}`).join(', ');

function toConversation(r: ConversationRow): Conversation {
  return {
    id: r.id, workspaceId: r.workspace_id, characterId: r.character_id, platform: r.platform, platformUserId: r.platform_user_id,
    platformUserName: r.platform_user_name, status: r.status, lastMessageAt: r.last_message_at, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

export function toMessage(r: MessageRow): ConversationMessage & { claimedAt: Date | null } {
  return {
    id: r.id, conversationId: r.conversation_id, characterId: r.character_id, platform: r.platform, direction: r.direction, channel: r.channel,
    origin: r.origin, text: r.text, status: r.status, platformMessageId: r.platform_message_id, remotePostId: r.remote_post_id,
    replyToId: r.reply_to_id, reviewReason: r.review_reason, authorUserId: r.author_user_id, sendAt: r.send_at, sentAt: r.sent_at,
    claimedAt: r.claimed_at, error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null, createdAt: r.created_at,
  };
}

export interface NewReply {
  workspaceId: string;
  conversation: Conversation;
  channel: Channel;
  origin: 'auto' | 'manual';
  text: string;
  status: 'pending_review' | 'queued';
  replyToId: string | null;
  reviewReason: ReviewReason | null;
  authorUserId: string | null;
  sendAt: Date | null;
  /** Why no text was written (a draft the text generator could not write). */
  error?: { code: string; message: string } | null;
}

export interface ConversationFilter {
  platform?: Platform;
  status?: ConversationStatus;
}

/** A message from the audience, once per workspace and platform message id. */
function audienceMessage(p: SqlParams, ws: string, platform: string, at: string, m: InboundMessage, messageId: string): string {
  return `INSERT INTO conversation_messages (id, workspace_id, conversation_id, character_id, platform, direction, channel, platform_message_id, remote_post_id, text, status, origin, created_at)
    SELECT ${p.bind(messageId)}, ${ws}, c.id, c.character_id, ${platform}, 'inbound', ${p.bind(m.channel)}, ${p.bind(m.platformMessageId)}, ${p.bind(m.remotePostId)}, ${p.bind(m.text)}, 'received', 'audience', ${at}
    FROM inbound_conversation c
    ON CONFLICT (workspace_id, platform, platform_message_id) WHERE direction = 'inbound' DO NOTHING
    RETURNING ${MESSAGE_COLUMNS}`;
}

/** What the account itself sent, as sent by the platform: not again when it is one of our replies or already kept. */
function ownMessage(p: SqlParams, ws: string, platform: string, at: string, m: InboundMessage, messageId: string): string {
  const remoteId = p.bind(m.platformMessageId);
  return `INSERT INTO conversation_messages (id, workspace_id, conversation_id, character_id, platform, direction, channel, platform_message_id, remote_post_id, text, status, origin, sent_at, created_at)
    SELECT ${p.bind(messageId)}, ${ws}, c.id, c.character_id, ${platform}, 'outbound', ${p.bind(m.channel)}, ${remoteId}, ${p.bind(m.remotePostId)}, ${p.bind(m.text)}, 'sent', 'platform', ${at}, ${at}
    FROM inbound_conversation c
    WHERE NOT EXISTS (SELECT 1 FROM conversation_messages WHERE workspace_id = ${ws} AND platform = ${platform} AND platform_message_id = ${remoteId} AND direction = 'outbound')
    RETURNING ${MESSAGE_COLUMNS}`;
}

/** Conversations with platform users and their messages; every read and write names the workspace. */
@Injectable()
export class ConversationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Adds to `statement` what stores a message in one round trip:
   * - `inbound_target`: its character (`byPost`, else the one already talking with that person,
   *   else the latest whose responder answers on the platform; none leaves the message unrouted);
   * - `inbound_conversation`: the conversation, made on the first message;
   * - `inbound_message`: the message as `messageId`, nothing when the workspace has it already. What
   *   the account itself sent (an echo of our reply, or written in the platform's app) is kept as
   *   sent by the platform, and nothing when it is one of our replies;
   * - `inbound_answerable`: a row when the new message is one to answer (from the audience, in a
   *   conversation not paused or closed), for the caller's outbox event.
   */
  addInbound(statement: ComposedStatement, workspaceId: string, m: InboundMessage, byPost: string | null, messageId: string): void {
    statement.withParts((p) => {
      const [ws, platform, user, at] = [p.bind(workspaceId), p.bind(m.platform), p.bind(m.authorId), p.bind(m.createdAt)];
      return [
        ['inbound_target', `SELECT COALESCE(${p.bind(byPost)}::text,
            (SELECT character_id FROM conversations WHERE workspace_id = ${ws} AND platform = ${platform} AND platform_user_id = ${user} ORDER BY last_message_at DESC LIMIT 1),
            (SELECT character_id FROM responder_settings WHERE workspace_id = ${ws} AND enabled AND ${platform} = ANY (platforms_enabled) ORDER BY updated_at DESC LIMIT 1)) AS character_id`],
        ['inbound_conversation', `INSERT INTO conversations (id, workspace_id, character_id, platform, platform_user_id, platform_user_name, last_message_at)
            SELECT ${p.bind(newId('cnv'))}, ${ws}, character_id, ${platform}, ${user}, ${p.bind(m.authorName)}, ${at} FROM inbound_target WHERE character_id IS NOT NULL
            ON CONFLICT (workspace_id, character_id, platform, platform_user_id) DO UPDATE
              SET last_message_at = GREATEST(conversations.last_message_at, EXCLUDED.last_message_at),
                  platform_user_name = CASE WHEN EXCLUDED.platform_user_name = '' THEN conversations.platform_user_name ELSE EXCLUDED.platform_user_name END,
                  updated_at = now()
            RETURNING id, character_id, status`],
        ['inbound_message', m.own ? ownMessage(p, ws, platform, at, m, messageId) : audienceMessage(p, ws, platform, at, m, messageId)],
        ['inbound_answerable', `SELECT 1 FROM inbound_message, inbound_conversation c WHERE ${m.own ? 'false' : "c.status IN ('open', 'pending_review')"}`],
      ];
    });
  }

  /** Runs a statement `addInbound` wrote: whether a character took the message, and the message when it was new. */
  async runInbound(statement: ComposedStatement): Promise<{ routed: boolean; message: ConversationMessage | null }> {
    const rows = await statement.run<MessageRow & { routed: boolean }>(this.ds, 'SELECT t.character_id IS NOT NULL AS routed, m.* FROM inbound_target t LEFT JOIN inbound_message m ON true');
    const row = rows[0];
    return { routed: row.routed, message: row.id ? toMessage(row) : null };
  }

  async insertReply(tx: Tx, r: NewReply): Promise<ConversationMessage | null> {
    const c = r.conversation;
    const rows = await insertedRows<MessageRow>(
      tx,
      `INSERT INTO conversation_messages (id, workspace_id, conversation_id, character_id, platform, direction, channel, text, status, origin, reply_to_id, review_reason, author_user_id, send_at, error_code, error_message)
       VALUES ($1, $2, $3, $4, $5, 'outbound', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (reply_to_id) WHERE origin = 'auto' DO NOTHING
       RETURNING ${MESSAGE_COLUMNS}`,
      [newId('cmsg'), r.workspaceId, c.id, c.characterId, c.platform, r.channel, r.text, r.status, r.origin, r.replyToId, r.reviewReason, r.authorUserId, r.sendAt, r.error?.code ?? null, r.error?.message ?? null],
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async find(workspaceId: string, id: string, tx: Tx = this.ds.manager): Promise<Conversation | null> {
    const rows: ConversationRow[] = await tx.query('SELECT * FROM conversations WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async lock(tx: Tx, workspaceId: string, id: string): Promise<Conversation | null> {
    const rows: ConversationRow[] = await tx.query('SELECT * FROM conversations WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [workspaceId, id]);
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async list(workspaceId: string, characterId: string, filter: ConversationFilter, page: PageRequest): Promise<Page<Conversation>> {
    const rows: Array<ConversationRow & { total: string }> = await this.ds.query(
      `SELECT *, count(*) OVER () AS total FROM conversations
       WHERE workspace_id = $1 AND character_id = $2 AND ($3::text IS NULL OR platform = $3) AND ($4::text IS NULL OR status = $4)
       ORDER BY last_message_at DESC, id DESC LIMIT $5 OFFSET $6`,
      [workspaceId, characterId, filter.platform ?? null, filter.status ?? null, page.pageSize, offsetOf(page)],
    );
    const total = rows.length > 0 ? Number(rows[0].total) : page.page === 1 ? 0 : await this.count(workspaceId, characterId, filter);
    return { items: rows.map(toConversation), total, page: page.page, pageSize: page.pageSize };
  }

  private async count(workspaceId: string, characterId: string, filter: ConversationFilter): Promise<number> {
    const rows: Array<{ n: string }> = await this.ds.query(
      'SELECT count(*) AS n FROM conversations WHERE workspace_id = $1 AND character_id = $2 AND ($3::text IS NULL OR platform = $3) AND ($4::text IS NULL OR status = $4)',
      [workspaceId, characterId, filter.platform ?? null, filter.status ?? null],
    );
    return Number(rows[0].n);
  }

  /** The conversation's latest `limit` messages, oldest first. */
  async messages(workspaceId: string, conversationId: string, limit: number, tx: Tx = this.ds.manager): Promise<ConversationMessage[]> {
    const rows: MessageRow[] = await tx.query(
      `SELECT * FROM (SELECT ${MESSAGE_COLUMNS} FROM conversation_messages WHERE workspace_id = $1 AND conversation_id = $2
         ORDER BY created_at DESC, id DESC LIMIT $3) latest ORDER BY created_at, id`,
      [workspaceId, conversationId, limit],
    );
    return rows.map(toMessage);
  }

  async message(workspaceId: string, id: string, tx: Tx = this.ds.manager): Promise<(ConversationMessage & { claimedAt: Date | null }) | null> {
    const rows: MessageRow[] = await tx.query(`SELECT ${MESSAGE_COLUMNS} FROM conversation_messages WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  /** The latest inbound message of the conversation: what a manual reply answers. */
  async latestInbound(tx: Tx, workspaceId: string, conversationId: string): Promise<ConversationMessage | null> {
    const rows: MessageRow[] = await tx.query(
      `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages WHERE workspace_id = $1 AND conversation_id = $2 AND direction = 'inbound' ORDER BY created_at DESC, id DESC LIMIT 1`,
      [workspaceId, conversationId],
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  /** Whether the character has already written to this person in this conversation (the greeting opens the first reply only). */
  async hasReplied(workspaceId: string, conversationId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `SELECT 1 FROM conversation_messages WHERE workspace_id = $1 AND conversation_id = $2 AND direction = 'outbound' AND status IN ('queued', 'sending', 'sent') LIMIT 1`,
      [workspaceId, conversationId],
    );
    return rows.length > 0;
  }

  /** The send times of the character's latest `cap` unattended auto replies, latest first (the hourly cap counts those). */
  async latestAutoSends(tx: Tx, characterId: string, cap: number): Promise<Date[]> {
    const rows: Array<{ send_at: Date }> = await tx.query(
      `SELECT send_at FROM conversation_messages WHERE character_id = $1 AND origin = 'auto' AND author_user_id IS NULL AND status IN ('queued', 'sending', 'sent')
       ORDER BY send_at DESC LIMIT $2`,
      [characterId, cap],
    );
    return rows.map((r) => r.send_at);
  }

  async pendingDrafts(tx: Tx, workspaceId: string, conversationId: string): Promise<number> {
    const rows: Array<{ n: string }> = await tx.query(
      `SELECT count(*) AS n FROM conversation_messages WHERE workspace_id = $1 AND conversation_id = $2 AND status = 'pending_review'`,
      [workspaceId, conversationId],
    );
    return Number(rows[0].n);
  }

  async setStatus(tx: Tx, workspaceId: string, id: string, status: ConversationStatus): Promise<Conversation> {
    const rows = await changedRows<ConversationRow>(tx, 'UPDATE conversations SET status = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2 RETURNING *', [workspaceId, id, status]);
    return toConversation(rows[0]);
  }

  /** A paused conversation's queued auto replies wait for a person instead. */
  async holdQueuedAutoReplies(tx: Tx, workspaceId: string, conversationId: string): Promise<number> {
    const rows = await changedRows<{ id: string }>(
      tx,
      `UPDATE conversation_messages SET status = 'pending_review', review_reason = 'paused', send_at = NULL, updated_at = now()
       WHERE workspace_id = $1 AND conversation_id = $2 AND origin = 'auto' AND author_user_id IS NULL AND status = 'queued' RETURNING id`,
      [workspaceId, conversationId],
    );
    return rows.length;
  }

  /** A draft approved by a person: queued to go at once, in its (possibly edited) text. */
  async approve(tx: Tx, workspaceId: string, id: string, userId: string, text: string | undefined): Promise<ConversationMessage | null> {
    const rows = await changedRows<MessageRow>(
      tx,
      `UPDATE conversation_messages SET status = 'queued', author_user_id = $3, text = COALESCE($4, text), error_code = NULL, error_message = NULL, send_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'pending_review' RETURNING ${MESSAGE_COLUMNS}`,
      [workspaceId, id, userId, text ?? null],
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  /** Takes a due reply for sending: one worker wins, and only while its conversation is not paused (replies a person wrote go anyway). */
  async claim(workspaceId: string, id: string): Promise<ConversationMessage | null> {
    const rows = await changedRows<MessageRow>(
      this.ds.manager,
      `UPDATE conversation_messages m SET status = 'sending', claimed_at = now(), updated_at = now()
       FROM conversations c
       WHERE m.workspace_id = $1 AND m.id = $2 AND m.status = 'queued' AND m.send_at <= now() AND c.id = m.conversation_id
         AND (c.status <> 'paused' OR m.author_user_id IS NOT NULL)
       RETURNING ${M_MESSAGE_COLUMNS}`,
      [workspaceId, id],
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async markSent(workspaceId: string, id: string, remoteId: string): Promise<ConversationMessage | null> {
    const rows = await changedRows<MessageRow>(
      this.ds.manager,
      `UPDATE conversation_messages SET status = 'sent', platform_message_id = $3, sent_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'sending' RETURNING ${MESSAGE_COLUMNS}`,
      [workspaceId, id, remoteId],
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async markFailed(workspaceId: string, id: string, code: string, message: string): Promise<void> {
    await this.ds.query(
      `UPDATE conversation_messages SET status = 'failed', error_code = $3, error_message = $4, updated_at = now() WHERE workspace_id = $1 AND id = $2 AND status IN ('queued', 'sending')`,
      [workspaceId, id, code, message.slice(0, 500)],
    );
  }

  /** A send refused before anything went out: queued again for the outbox's retry. */
  async requeue(workspaceId: string, id: string): Promise<void> {
    await this.ds.query(`UPDATE conversation_messages SET status = 'queued', claimed_at = NULL, updated_at = now() WHERE workspace_id = $1 AND id = $2 AND status = 'sending'`, [workspaceId, id]);
  }
}
