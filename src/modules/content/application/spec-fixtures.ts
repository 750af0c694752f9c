import type { DataSource } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import { newContentItem, type ContentItem } from '../domain/content-item.js';

/**
 * One content item in a store, for application specs: a repository stand-in whose updates change
 * it, and a data source whose transactions all hand out the same marker (to tell where a write went).
 */
export function oneItemStore(fields: Partial<Parameters<typeof newContentItem>[0]>, overrides: Partial<ContentItem>) {
  const base = { id: 'cnt_1', workspaceId: 'ws_1', characterId: 'char_1', platform: 'instagram', contentType: 'single', kind: 'image', imagePrompt: 'p' } as const;
  const store = { current: { ...newContentItem({ ...base, ...fields }, new Date()), ...overrides } };
  const tx = { marker: 'tx' } as unknown as Tx;
  const ds = { manager: {}, transaction: (work: (t: Tx) => Promise<unknown>) => work(tx) } as unknown as DataSource;
  const items = {
    find: async () => ({ ...store.current }),
    update: async (_tx: Tx, _ws: string, _id: string, changes: Partial<ContentItem>) => void (store.current = { ...store.current, ...changes }),
  };
  return { store, tx, ds, items };
}
