/** How X counts the length of a post's text; shared by posts, replies and the sandbox's checks. */

/** X counts every URL as 23 characters, whatever its length (t.co wrapping). */
const URL_WEIGHT = 23;
export const URL_PATTERN = /https?:\/\/\S+/g;

/** X's weighted length (twitter-text v3): code points in the light ranges weigh 1, others 2, URLs 23. */
export function tweetWeight(text: string): number {
  let weight = 0;
  const rest = text.replace(URL_PATTERN, () => {
    weight += URL_WEIGHT;
    return '';
  });
  for (const char of rest) weight += charWeight(char);
  return weight;
}

export function charWeight(char: string): number {
  const code = char.codePointAt(0)!;
  const light = code <= 4351 || (code >= 8192 && code <= 8205) || (code >= 8208 && code <= 8223) || (code >= 8242 && code <= 8247);
  return light ? 1 : 2;
}

