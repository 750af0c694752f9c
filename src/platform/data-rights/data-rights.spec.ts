import { describe, expect, it } from '@jest/globals';
import { buildContributorTable } from './contributor-registry.js';
import type { WorkspaceDataContributor } from './data-contributor.js';
import { storageKeysIn } from './media-keys.js';
import { exportTables, isSecretColumn, readWorkspaceTables, type Queryable } from './table-reader.js';

const contributor = (context: string): WorkspaceDataContributor => ({
  context,
  export: () => Promise.resolve({ records: {}, mediaKeys: [] }),
  mediaKeys: () => Promise.resolve([]),
});

describe('buildContributorTable', () => {
  it('answers the contributors sorted by context', () => {
    const table = buildContributorTable([{ owner: 'B', contributor: contributor('content') }, { owner: 'A', contributor: contributor('auth') }]);
    expect(table.map((c) => c.context)).toEqual(['auth', 'content']);
  });

  it('stops the boot when two contributors claim one context, naming both', () => {
    expect(() => buildContributorTable([{ owner: 'One', contributor: contributor('content') }, { owner: 'Two', contributor: contributor('content') }])).toThrow(
      'Data context "content" has two contributors: One and Two',
    );
  });

  it('stops the boot for a contributor without a usable context name (it names the export file)', () => {
    for (const bad of ['', '../etc', 'Content', undefined]) {
      expect(() => buildContributorTable([{ owner: 'Bad', contributor: contributor(bad as string) }])).toThrow('Data contributor Bad has no valid context name');
    }
  });
});

describe('storageKeysIn', () => {
  it('finds keys in key-named columns and in JSON media lists, at any depth, once each', () => {
    const rows = [
      { id: 'ref_1', storage_key: 'characters/char_1/ref_1.png', url: 'http://x/api/v1/media/characters/char_1/ref_1.png' },
      { media: [{ key: 'content/cnt_1/job_1-0.png', thumbnailKey: 'content/cnt_1/job_1-thumb.jpg' }], video: null },
      { sample_keys: ['voices/voice_1/a.mp3', 'voices/voice_1/b.wav'], logo_key: 'characters/char_1/ref_1.png' },
    ];
    expect(storageKeysIn(rows).sort()).toEqual([
      'characters/char_1/ref_1.png', 'content/cnt_1/job_1-0.png', 'content/cnt_1/job_1-thumb.jpg', 'voices/voice_1/a.mp3', 'voices/voice_1/b.wav',
    ]);
  });

  it('ignores values of other fields and values that are not a key (a URL, a traversal, a bare name)', () => {
    expect(storageKeysIn([{ url: 'content/cnt_1/a.png', key: 'http://evil/a.png', video_key: '../../etc/passwd.png', source_key: 'a.png', niche_key: 'fashion' }])).toEqual([]);
  });
});

describe('table reader', () => {
  const db = (rows: Record<string, Record<string, unknown>[]>): Queryable & { sql: string[] } => {
    const sql: string[] = [];
    return { sql, query: (q: string) => (sql.push(q), Promise.resolve(rows[/FROM (\w+)/.exec(q)![1]] ?? [])) };
  };

  it('never exports a credential column, whatever the table calls it', () => {
    for (const name of ['password_hash', 'token_hash', 'key_hash', 'access_token_enc', 'refresh_token_enc', 'secret_sealed', 'api_key_sealed', 'totp_secret', 'token']) {
      expect([name, isSecretColumn(name)]).toEqual([name, true]);
    }
    for (const name of ['hashtags', 'email', 'storage_key', 'tokens_used_at', 'prefix']) expect([name, isSecretColumn(name)]).toEqual([name, false]);
  });

  it('reads each table by the workspace and leaves secrets and omitted columns out', async () => {
    const q = db({ users: [{ id: 'user_1', email: 'a@b.c', password_hash: 'x', totp_secret_sealed: 'y' }], sessions: [{ id: 'ses_1', ip: '1.2.3.4' }] });
    const records = await readWorkspaceTables(q, 'ws_1', [{ table: 'users', where: 'id = $1' }, { table: 'sessions', omit: ['ip'] }]);
    expect(records).toEqual({ users: [{ id: 'user_1', email: 'a@b.c' }], sessions: [{ id: 'ses_1' }] });
    expect(q.sql).toEqual(['SELECT * FROM users WHERE id = $1 ORDER BY 1', 'SELECT * FROM sessions WHERE workspace_id = $1 ORDER BY 1']);
  });

  it("adds a table's files to the export unless it says they are not the workspace's own", async () => {
    const q = db({ account_exports: [{ archive_key: 'exports/exp_1/archive.zip' }], characters: [{ avatar_key: 'characters/char_1/a.png' }] });
    const out = await exportTables(q, 'ws_1', [{ table: 'characters' }, { table: 'account_exports', exportMedia: false }]);
    expect(out.mediaKeys).toEqual(['characters/char_1/a.png']);
  });
});
