/** Replicate takes files inline as data URIs; this is how our stored bytes travel to it. */
export function toDataUri(file: { bytes: Buffer; contentType: string }): string {
  return `data:${file.contentType};base64,${file.bytes.toString('base64')}`;
}

/** The bytes of a base64 data URI, or null when the text is not one. */
export function fromDataUri(uri: string): { bytes: Buffer; contentType: string } | null {
  const match = /^data:([\w.+/-]+)(?:;[\w=.-]+)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(uri);
  if (!match) return null;
  return { contentType: match[1].toLowerCase(), bytes: Buffer.from(match[2], 'base64') };
}
