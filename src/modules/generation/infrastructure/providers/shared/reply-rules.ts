import type { ReplyDraftRequest } from '../../../application/ports/index.js';
import { upstreamFailed, type ProviderName } from './provider-failure.js';

/** What every reply request must be, whichever adapter answers it: a thread ending on an audience message, a positive length. */
export function checkReplyRequest(provider: ProviderName, req: ReplyDraftRequest): void {
  const last = req.thread.at(-1);
  if (!last) throw upstreamFailed(provider, 'bad_input', 'A reply needs a thread with the message to answer.');
  if (last.from !== 'audience') throw upstreamFailed(provider, 'bad_input', 'A reply answers an audience message; the thread ends with the character’s own.');
  if (last.text.trim() === '') throw upstreamFailed(provider, 'bad_input', 'The message to answer is empty.');
  if (!Number.isInteger(req.maxLength) || req.maxLength < 1) throw upstreamFailed(provider, 'bad_input', `A reply's maximum length must be a positive whole number (got ${req.maxLength}).`);
}

/** The owner's greeting when this is the character's first reply in the conversation; otherwise none. */
export function firstReplyGreeting(req: ReplyDraftRequest): string | undefined {
  const greeting = req.greeting?.trim();
  return greeting && !req.thread.some((m) => m.from === 'character') ? greeting : undefined;
}

/** A display name fit to address someone by: no '@', one line, no link, not overly long; undefined otherwise. */
export function addressable(author: string | undefined): string | undefined {
  const name = author?.trim().replace(/^@+/, '').trim();
  if (!name || name.length > 40 || /[\r\n]/.test(name) || containsLink(name)) return undefined;
  return name;
}

const LINK = /\bhttps?:\/\/|\bwww\.[\p{L}\p{N}-]+\.\p{L}/iu;

/** Replies carry no links: the responder answers in public on the owner's behalf, and a link is what spam and injected instructions ask for. */
export function containsLink(text: string): boolean {
  return LINK.test(text);
}

const QUOTE_PAIRS: Array<[string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ['“', '”'],
  ['‘', '’'],
  ['«', '»'],
  ['„', '“'],
  ['`', '`'],
];

/** Trimmed, without quotes wrapping the whole text (as chat models often answer); quotes inside the text stay. */
export function unquote(text: string): string {
  let out = text.trim();
  for (;;) {
    const pair = QUOTE_PAIRS.find(([open, close]) => out.length >= 2 && out.startsWith(open) && out.endsWith(close));
    if (!pair) return out;
    const inner = out.slice(1, -1);
    // `"Wow" is right, "Ana"`: the outer quotes belong to two quotations, not to the whole text.
    if (inner.includes(pair[0]) || inner.includes(pair[1])) return out;
    out = inner.trim();
  }
}

const ELLIPSIS = '…';

/**
 * The text within `maxLength` characters (UTF-16 code units, which never undercount what a
 * platform counts): whole when it fits; else up to the last sentence end when that keeps at least
 * half of the room; else up to the last word boundary, with an ellipsis; a single overlong word is
 * cut hard. Never splits a surrogate pair.
 */
export function fitReply(text: string, maxLength: number): string {
  const clean = text.trim();
  if (clean.length <= maxLength) return clean;
  const room = clean.slice(0, maxLength + 1);
  const sentenceEnds = [...room.matchAll(/[.!?…](?=\s)/gu)].map((m) => m.index + 1);
  const sentence = sentenceEnds.filter((end) => end <= maxLength).at(-1);
  if (sentence !== undefined && sentence >= maxLength / 2) return clean.slice(0, sentence).trim();
  if (maxLength <= ELLIPSIS.length) return safeSlice(clean, maxLength);
  const head = clean.slice(0, maxLength);
  const space = head.search(/\s\S*$/u);
  const body = space > 0 ? head.slice(0, space).replace(/[\s,;:–—-]+$/u, '') : safeSlice(clean, maxLength - ELLIPSIS.length);
  return `${body.slice(0, maxLength - ELLIPSIS.length).trimEnd()}${ELLIPSIS}`;
}

function safeSlice(text: string, length: number): string {
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
