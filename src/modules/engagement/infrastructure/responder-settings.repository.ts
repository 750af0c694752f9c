import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { insertedRows, type Tx } from '../../../platform/database/index.js';
import { DEFAULT_RESPONDER, type ResponderPlatform, type ResponderSettings } from '../domain/responder.js';

interface SettingsRow {
  enabled: boolean;
  platforms_enabled: string[];
  max_replies_per_hour: number;
  response_delay_seconds: number;
  greeting_message: string | null;
  banned_topics: string[];
  mode: 'auto' | 'review';
  updated_at: Date;
}

const COLUMNS = 'enabled, platforms_enabled, max_replies_per_hour, response_delay_seconds, greeting_message, banned_topics, mode, updated_at';

function toSettings(row: SettingsRow | undefined): ResponderSettings {
  if (!row) return { ...DEFAULT_RESPONDER };
  return {
    enabled: row.enabled,
    platformsEnabled: row.platforms_enabled as ResponderPlatform[],
    maxRepliesPerHour: row.max_replies_per_hour,
    responseDelaySeconds: row.response_delay_seconds,
    greetingMessage: row.greeting_message,
    bannedTopics: row.banned_topics,
    mode: row.mode,
    updatedAt: row.updated_at,
  };
}

/** Each character's responder settings; a character without a row has the defaults (off). */
@Injectable()
export class ResponderSettingsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async get(workspaceId: string, characterId: string, tx: Tx = this.ds.manager): Promise<ResponderSettings> {
    const rows: SettingsRow[] = await tx.query(`SELECT ${COLUMNS} FROM responder_settings WHERE workspace_id = $1 AND character_id = $2`, [workspaceId, characterId]);
    return toSettings(rows[0]);
  }

  /** The settings, locked until `tx` ends: replies of one character are given send times one at a time. */
  async lock(tx: Tx, workspaceId: string, characterId: string): Promise<ResponderSettings> {
    const rows: SettingsRow[] = await tx.query(`SELECT ${COLUMNS} FROM responder_settings WHERE workspace_id = $1 AND character_id = $2 FOR UPDATE`, [workspaceId, characterId]);
    return toSettings(rows[0]);
  }

  async save(tx: Tx, workspaceId: string, characterId: string, s: ResponderSettings): Promise<ResponderSettings> {
    const rows = await insertedRows<SettingsRow>(
      tx,
      `INSERT INTO responder_settings (character_id, workspace_id, enabled, platforms_enabled, max_replies_per_hour, response_delay_seconds, greeting_message, banned_topics, mode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (character_id) DO UPDATE SET enabled = EXCLUDED.enabled, platforms_enabled = EXCLUDED.platforms_enabled,
         max_replies_per_hour = EXCLUDED.max_replies_per_hour, response_delay_seconds = EXCLUDED.response_delay_seconds,
         greeting_message = EXCLUDED.greeting_message, banned_topics = EXCLUDED.banned_topics, mode = EXCLUDED.mode, updated_at = now()
       RETURNING ${COLUMNS}`,
      [characterId, workspaceId, s.enabled, s.platformsEnabled, s.maxRepliesPerHour, s.responseDelaySeconds, s.greetingMessage, s.bannedTopics, s.mode],
    );
    return toSettings(rows[0]);
  }

  /** Workspaces with a character answering on `platform`: the ones whose comments are read by polling. */
  async workspacesAnswering(platform: ResponderPlatform): Promise<string[]> {
    const rows: Array<{ workspace_id: string }> = await this.ds.query(
      'SELECT DISTINCT workspace_id FROM responder_settings WHERE enabled AND $1 = ANY (platforms_enabled)',
      [platform],
    );
    return rows.map((r) => r.workspace_id);
  }
}
