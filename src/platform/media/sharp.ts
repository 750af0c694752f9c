import type SharpModule from 'sharp';

export type Sharp = typeof SharpModule;

let loaded: Promise<Sharp> | undefined;

/**
 * libvips costs about 30 MB of resident memory, and its operation cache up to 50 MB more: load it
 * on first use, so processes that never touch pixels (most API instances) do not pay, and keep no
 * cache, since every image here is processed once.
 */
export function loadSharp(): Promise<Sharp> {
  loaded ??= import('sharp').then((m) => {
    m.default.cache(false);
    return m.default;
  });
  return loaded;
}
