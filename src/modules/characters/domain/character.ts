/** The character aggregate as the rest of the service sees it. Pure types and rules, no framework. */
export interface Appearance {
  age_range?: string;
  aesthetic?: string;
}
export interface Identity {
  location?: string;
  occupation?: string;
}
export interface Personality {
  tone?: string;
}
export interface Style {
  presets?: string[];
}
export interface Settings {
  autopilot?: boolean;
}

export interface Character {
  id: string;
  workspaceId: string;
  name: string;
  niche: string;
  appearance: Appearance;
  identity: Identity;
  personality: Personality;
  style: Style;
  settings: Settings;
  referenceImages: string[];
  talkingHeadEnabled: boolean;
  autopilot: boolean;
  faceConsistencyTier: string;
  loraTrainingStatus: string;
  contentCount: number;
  followerCount: number;
  lastPostDate: Date | null;
  isDefault: boolean;
  timezone: string | null;
  faceEmbeddingUpdatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a client may set on create and on PATCH. */
export interface CharacterInput {
  name?: string;
  niche?: string;
  appearance?: Appearance;
  identity?: Identity;
  personality?: Personality;
  style?: Style;
  settings?: Settings;
  talkingHeadEnabled?: boolean;
  referenceImages?: string[];
  timezone?: string | null;
}

export type ReferenceImageType = 'primary' | 'reference';

export const NAME_MAX = 80;
export const MAX_REFERENCE_URLS = 10;
export const FACE_EMBEDDING_JOB = 'recompute_face_embedding';

/** Name of a duplicate: "<name> (copy)", shortening the original so it stays within the limit. */
export function copyName(name: string): string {
  const suffix = ' (copy)';
  return `${name.slice(0, NAME_MAX - suffix.length).trimEnd()}${suffix}`;
}

/** Whether one more character fits the plan. */
export function hasRoomForCharacter(existing: number, limit: number): boolean {
  return existing < limit;
}

/** The first reference image of a character is its primary unless the client says otherwise. */
export function referenceTypeFor(requested: ReferenceImageType | undefined, existingImages: number): ReferenceImageType {
  return requested ?? (existingImages === 0 ? 'primary' : 'reference');
}

/** Shallow-merges a profile section: keys the client sent replace, the rest stay. */
export function mergeSection<T extends object>(current: T, patch: T | undefined): T {
  return patch === undefined ? current : { ...current, ...patch };
}

/** IANA zone check via the runtime's tz database; answers the canonical spelling, or null. */
export function canonicalTimeZone(value: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(value)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export interface ReferenceImage {
  id: string;
  characterId: string;
  workspaceId: string;
  type: ReferenceImageType;
  url: string;
  storageKey: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  createdAt: Date;
}

/** Where a reference image's bytes live: one folder per character, the file named by its id. */
export function referenceImageKey(characterId: string, referenceId: string, ext: string): string {
  return `characters/${characterId}/${referenceId}.${ext}`;
}

/** A new character from create input: the interface's defaults for everything not given. */
export function newCharacter(id: string, workspaceId: string, input: CharacterInput & { name: string; niche: string }, now: Date): Character {
  return {
    id,
    workspaceId,
    name: input.name,
    niche: input.niche,
    appearance: input.appearance ?? {},
    identity: input.identity ?? {},
    personality: input.personality ?? {},
    style: input.style ?? {},
    settings: input.settings ?? {},
    referenceImages: input.referenceImages ?? [],
    talkingHeadEnabled: input.talkingHeadEnabled ?? false,
    autopilot: input.settings?.autopilot ?? false,
    faceConsistencyTier: 'ip_adapter',
    loraTrainingStatus: 'none',
    contentCount: 0,
    followerCount: 0,
    lastPostDate: null,
    isDefault: false,
    timezone: input.timezone ? canonicalTimeZone(input.timezone) : null,
    faceEmbeddingUpdatedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The changes a PATCH makes: sections merge key by key, lists and scalars replace. */
export function characterChanges(current: Character, input: CharacterInput, now: Date): Partial<Character> {
  const changes: Partial<Character> = { updatedAt: now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.niche !== undefined) changes.niche = input.niche;
  if (input.appearance !== undefined) changes.appearance = mergeSection(current.appearance, input.appearance);
  if (input.identity !== undefined) changes.identity = mergeSection(current.identity, input.identity);
  if (input.personality !== undefined) changes.personality = mergeSection(current.personality, input.personality);
  if (input.style !== undefined) changes.style = mergeSection(current.style, input.style);
  if (input.settings !== undefined) {
    changes.settings = mergeSection(current.settings, input.settings);
    if (input.settings.autopilot !== undefined) changes.autopilot = input.settings.autopilot;
  }
  if (input.talkingHeadEnabled !== undefined) changes.talkingHeadEnabled = input.talkingHeadEnabled;
  if (input.referenceImages !== undefined) changes.referenceImages = [...new Set(input.referenceImages)];
  if (input.timezone !== undefined) changes.timezone = input.timezone === null ? null : canonicalTimeZone(input.timezone);
  return changes;
}
