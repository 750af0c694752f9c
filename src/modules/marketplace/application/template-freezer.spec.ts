import { describe, expect, it } from '@jest/globals';
import type { Storage } from '../../../platform/storage/index.js';
import type { CharacterTemplate } from '../../characters/index.js';
import { TemplateFreezer, templateKeys } from './template-freezer.js';

function fakeStorage(existing: string[]) {
  const objects = new Set(existing);
  const deleted: string[] = [];
  const storage = {
    async copy(from: string, to: string) {
      if (!objects.has(from)) return null;
      objects.add(to);
      return { key: to, url: `https://media.test/${to}` };
    },
    async delete(key: string) {
      deleted.push(key);
      objects.delete(key);
    },
  };
  return { storage: storage as unknown as Storage, objects, deleted };
}

const image = (key: string) => ({ url: `https://media.test/${key}`, storageKey: key, type: 'reference' as const, contentType: 'image/png', sizeBytes: 10, width: 2, height: 2, embedding: null });

const snapshot: CharacterTemplate = {
  name: 'Mia', niche: 'travel', appearance: {}, identity: {}, personality: {}, style: {}, settings: {}, autopilot: false,
  talkingHeadEnabled: false, timezone: null, faceEmbedding: null,
  referenceImages: ['https://cdn.example.com/external.png', 'https://media.test/characters/char_1/ref_a.png', 'https://media.test/characters/char_1/ref_gone.png'],
  images: [image('characters/char_1/ref_a.png'), image('characters/char_1/ref_gone.png')],
};

describe('TemplateFreezer', () => {
  it("copies the images to the listing's own keys and points the template at the copies", async () => {
    const { storage } = fakeStorage(['characters/char_1/ref_a.png']);
    const frozen = await new TemplateFreezer(storage).freeze('mkt_1', snapshot);
    expect(frozen.keys).toHaveLength(1);
    expect(frozen.keys[0]).toMatch(/^marketplace\/mkt_1\/ref_[0-9A-Z]{26}\.png$/);
    expect(frozen.template.images).toEqual([{ ...image(frozen.keys[0]) }]);
    // External URLs stay, copied uploads are replaced, uploads whose bytes are gone are dropped.
    expect(frozen.template.referenceImages).toEqual(['https://cdn.example.com/external.png', `https://media.test/${frozen.keys[0]}`]);
    expect(templateKeys(frozen.template)).toEqual(frozen.keys);
    expect(frozen.template.name).toBe('Mia');
  });

  it('removes what it copied when a copy fails midway', async () => {
    const { storage, deleted } = fakeStorage(['characters/char_1/ref_a.png', 'characters/char_1/ref_gone.png']);
    let n = 0;
    const failing = { ...storage, copy: async (from: string, to: string) => (++n === 2 ? Promise.reject(new Error('disk full')) : storage.copy(from, to)), delete: storage.delete } as unknown as Storage;
    await expect(new TemplateFreezer(failing).freeze('mkt_1', snapshot)).rejects.toThrow('disk full');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatch(/^marketplace\/mkt_1\//);
  });
});
