import { describe, expect, it } from '@jest/globals';
import { isInAppPath } from './redirect-path.js';

describe('isInAppPath', () => {
  it('accepts in-app paths with query and fragment', () => {
    for (const p of ['/', '/settings', '/settings/integrations', '/a/b?x=1#y', '/a/b?next=https://x.example', '/café', '/a b', '/' + 'a'.repeat(511)]) {
      expect({ p, ok: isInAppPath(p) }).toEqual({ p, ok: true });
    }
  });

  it('refuses empty, relative, scheme and host forms', () => {
    for (const p of ['', 'settings', 'a/b', '//evil.com', '///evil.com', 'https://evil.com', 'javascript:alert(1)', ' /settings', '/\\evil.com', '\\/evil.com']) {
      expect({ p, ok: isInAppPath(p) }).toEqual({ p, ok: false });
    }
  });

  it('refuses control characters and backslashes anywhere', () => {
    for (const p of ['/a\nb', '/a\rb', '/\t//evil.com', '/a\u0000', '/a\u007f', '/a\u001fb', '/a\\b', '/settings\\']) {
      expect({ p, ok: isInAppPath(p) }).toEqual({ p, ok: false });
    }
  });

  it('refuses a percent-encoded control character', () => {
    for (const p of ['/%0a', '/%0d%0aSet-Cookie:x=1', '/a%00']) {
      expect({ p, ok: isInAppPath(p) }).toEqual({ p, ok: false });
    }
  });

  it('refuses paths longer than 512 characters', () => {
    expect(isInAppPath('/' + 'a'.repeat(511))).toBe(true);
    expect(isInAppPath('/' + 'a'.repeat(512))).toBe(false);
  });
});
