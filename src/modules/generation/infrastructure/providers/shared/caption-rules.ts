/** Limits every caption draft keeps, whichever adapter wrote it (Instagram's are the tightest). */
export const CAPTION_MAX_CHARS = 2200;
export const HASHTAGS_MAX = 30;
export const CTA_MAX_CHARS = 300;
export const IMAGE_PROMPT_MAX_CHARS = 1000;

/** Tags without '#', trimmed, each once (case-insensitively), at most 30. */
export function normaliseHashtags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim().replace(/^#+/, '');
    const key = tag.toLowerCase();
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out.slice(0, HASHTAGS_MAX);
}

/** Hashtags from free text: its longer words, letters and digits only, lower case. */
export function hashtagsFrom(texts: ReadonlyArray<string | undefined>, limit = 8): string[] {
  const words: string[] = [];
  for (const text of texts) {
    if (!text) continue;
    // A short phrase ("urban gardening") also makes one joined tag, as people write them.
    const phrase = text.trim().toLowerCase().split(/\s+/);
    const joined = phrase.join('').replace(/[^\p{L}\p{N}]/gu, '');
    if (phrase.length >= 2 && phrase.length <= 3 && joined.length <= 24) words.push(joined);
    for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word.length >= 4) words.push(word);
  }
  return normaliseHashtags(words).slice(0, limit);
}

/** Language tag as templates and prompts use it: its primary subtag, lower case ('pt-BR' → 'pt'). */
export function primaryLanguage(tag: string | undefined): string {
  return (tag ?? 'en').trim().toLowerCase().split(/[-_]/)[0] || 'en';
}
