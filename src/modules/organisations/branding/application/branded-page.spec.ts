import { escapeHtml, renderBrandedPage, type PageContent } from './branded-page.js';

const page: PageContent = { title: 'Account connected', message: 'Your instagram account is connected.', link: { href: 'https://app.test/settings?connected=instagram&x=1', text: 'Back to the app' } };

describe('branded page', () => {
  it('escapes markup and quotes', () => {
    expect(escapeHtml(`<b a="1" b='2'>&\``)).toBe('&#60;b a=&#34;1&#34; b=&#39;2&#39;&#62;&#38;&#96;');
  });

  it('shows the workspace name, colors and logo', () => {
    const html = renderBrandedPage(page, { displayName: 'Acme Creators', primaryColor: '#112233', secondaryColor: '#445566', logoUrl: 'https://api.test/api/v1/branding/logo/ws_1?v=ab' });
    expect(html).toContain('<p class="brand">Acme Creators</p>');
    expect(html).toContain('background:#112233');
    expect(html).toContain('background:#445566');
    expect(html).toContain('<img class="logo" src="https://api.test/api/v1/branding/logo/ws_1?v=ab" alt="Acme Creators">');
    expect(html).toContain('href="https://app.test/settings?connected=instagram&#38;x=1"');
  });

  it('cannot be broken out of by a display name', () => {
    const html = renderBrandedPage(page, { displayName: '</title><script>alert(1)</script>"', primaryColor: null, secondaryColor: null, logoUrl: null });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;/title&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#34;');
  });

  it('keeps colors and logos that are not what they must be out of the page', () => {
    const html = renderBrandedPage(page, { displayName: null, primaryColor: 'red;}body{x:url(//evil)', secondaryColor: null, logoUrl: 'javascript:alert(1)' });
    expect(html).not.toContain('evil');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('Persona Studio');
  });

  it('is the product look without branding', () => {
    const html = renderBrandedPage(page, null);
    expect(html).toContain('<p class="brand">Persona Studio</p>');
    expect(html).not.toContain('<img');
  });
});
