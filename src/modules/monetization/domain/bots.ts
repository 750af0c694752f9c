/**
 * User agents whose visits are not people clicking: crawlers, link unfurlers and previewers
 * (chat apps and social networks fetch a link as soon as it is posted), monitors and scripted
 * HTTP clients. An absent or empty user agent is a script too. In-app browsers (Instagram,
 * Facebook's FBAN, Pinterest's app, TikTok) are people and are counted; their crawlers say `bot`.
 */
const BOT_PATTERN = new RegExp(
  [
    'bot', 'crawl', 'spider', 'slurp', 'facebookexternalhit', 'facebookcatalog', 'meta-externalagent', 'preview',
    'embedly', 'quora link', 'vkshare', 'w3c_validator', 'whatsapp/', 'skypeuripreview',
    'bitlybot', 'outbrain', 'headlesschrome', 'phantomjs', 'lighthouse', 'pingdom', 'uptime', 'monitor',
    'curl/', 'wget/', 'python-requests', 'python-urllib', 'aiohttp', 'go-http-client', 'okhttp', 'java/', 'libwww',
    'httpclient', 'axios/', 'node-fetch', 'undici', 'scrapy', 'feedfetcher', 'mediapartners', 'google-read-aloud',
  ].map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'),
  'i',
);

/** Whether a visit with this User-Agent is left out of the click counts. */
export function isBotUserAgent(userAgent: string | undefined | null): boolean {
  if (userAgent === undefined || userAgent === null || userAgent.trim() === '') return true;
  return BOT_PATTERN.test(userAgent);
}
