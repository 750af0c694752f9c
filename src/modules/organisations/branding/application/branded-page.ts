import type { PageBranding } from './branding.service.js';

/** A small page the API renders itself (the OAuth return), in the workspace's look when it has one. */
export interface PageContent {
  title: string;
  message: string;
  /** Where the page's one link goes. */
  link: { href: string; text: string };
}

const PRODUCT_NAME = 'Persona Studio';
const DEFAULT_PRIMARY = '#4F46E5';
const DEFAULT_SECONDARY = '#F5F5F7';
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/** Text safe inside an HTML element or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Colors reach CSS unescaped, so they are used only when they are exactly #RRGGBB (the rule the
 * database and the API hold them to, checked again here because this page is where it matters).
 */
function color(value: string | null | undefined, fallback: string): string {
  return value && COLOR.test(value) ? value : fallback;
}

/** The logo only from an http(s) URL: anything else (javascript:, data:) is left out. */
function logoTag(url: string | null | undefined, alt: string): string {
  if (!url || !/^https?:\/\//i.test(url)) return '';
  return `<img class="logo" src="${escapeHtml(url)}" alt="${escapeHtml(alt)}">`;
}

/**
 * The whole HTML document. Every piece of text is escaped; a strict Content-Security-Policy sent
 * with it (see BRANDED_PAGE_CSP) is the second line against a display name that tries to be markup.
 */
export function renderBrandedPage(page: PageContent, branding: PageBranding | null): string {
  const name = branding?.displayName ?? PRODUCT_NAME;
  const primary = color(branding?.primaryColor, DEFAULT_PRIMARY);
  const secondary = color(branding?.secondaryColor, DEFAULT_SECONDARY);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)} · ${escapeHtml(name)}</title>`,
    `<style>body{font-family:system-ui,sans-serif;background:${secondary};margin:0;padding:3rem 1rem;text-align:center}`,
    `.logo{max-height:64px;max-width:240px}a{display:inline-block;margin-top:1.5rem;padding:.6rem 1.2rem;border-radius:6px;background:${primary};color:#fff;text-decoration:none}</style>`,
    '</head><body>',
    logoTag(branding?.logoUrl, name),
    `<p class="brand">${escapeHtml(name)}</p>`,
    `<h1>${escapeHtml(page.title)}</h1>`,
    `<p>${escapeHtml(page.message)}</p>`,
    `<a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a>`,
    '</body></html>',
  ].join('\n');
}

/** No script, no frames, styles only inline, images only from http(s): the page needs nothing else. */
export const BRANDED_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: http:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
