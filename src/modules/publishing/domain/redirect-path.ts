/**
 * The in-app path a connection flow returns to (contract §8): one leading `/`, no scheme, host,
 * backslash or control character, so the callback can never redirect off the app.
 */
export function isInAppPath(value: string): boolean {
  if (value.length === 0 || value.length > 512 || !hasSafeShape(value)) return false;
  // What a browser would decode must be as safe as what was sent ('/%0a', '/%2F%2Fevil').
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return false;
  }
  if (!hasSafeShape(decoded)) return false;
  // A scheme-like prefix cannot appear after the slash either ("/https://x" is fine, "/\t//x" is not).
  try {
    const resolved = new URL(value, 'https://app.invalid');
    return resolved.host === 'app.invalid';
  } catch {
    return false;
  }
}

function hasSafeShape(value: string): boolean {
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return false;
  return ![...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
}
