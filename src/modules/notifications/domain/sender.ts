/** MAIL_FROM split into its display name and address (`Name <a@b>`, `"Name" <a@b>` or `a@b`). */
export function parseSender(mailFrom: string, fallbackName: string): { name: string; address: string } {
  const named = /^\s*(?:"([^"]*)"|([^<]*?))\s*<([^>]+)>\s*$/.exec(mailFrom);
  if (named) return { name: (named[1] ?? named[2] ?? '').trim() || fallbackName, address: named[3].trim() };
  return { name: fallbackName, address: mailFrom.trim() };
}
