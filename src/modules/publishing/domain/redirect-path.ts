/**
 * The in-app path a connection flow returns to (contract §8): one leading `/`, no scheme, host,
 * backslash or control character, so the callback can never redirect off the app.
 */
export function isInAppPath(value: string): boolean {
  if (value.length === 0 || value.length > 512) return false;
  if (!value.startsWith('/') || value.startsWith('//')) return false;
  if (value.includes('\\') || [...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return false;
  // A scheme-like prefix cannot appear after the slash either ("/https://x" is fine, "/\t//x" is not).
  try {
    const resolved = new URL(value, 'https://app.invalid');
    return resolved.host === 'app.invalid';
  } catch {
    return false;
  }
}
