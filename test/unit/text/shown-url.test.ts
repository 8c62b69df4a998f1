// URLs as shown anywhere: the user name and password of each are replaced, whatever surrounds the URL.
import { describe, expect, it } from 'vitest';
import { quotedUrl, withoutCredentials } from '../../../src/text/shown-url.js';

describe('withoutCredentials', () => {
  it('hides the userinfo of every URL in a text, and leaves URLs without one alone', () => {
    expect(withoutCredentials('https://user:hunter2@code.example.com/api')).toBe('https://***@code.example.com/api');
    expect(withoutCredentials('https://glpat-abc@code.example.com')).toBe('https://***@code.example.com');
    expect(withoutCredentials('proxy: HTTP_PROXY http://u:p%40ss@proxy:3128, HTTPS_PROXY http://a:b@c:8080')).toBe(
      'proxy: HTTP_PROXY http://***@proxy:3128, HTTPS_PROXY http://***@c:8080',
    );
    // The last '@' before the host ends the userinfo, as a URL parser reads it.
    expect(withoutCredentials('https://u:p@ss@host/p?q=a@b')).toBe('https://***@host/p?q=a@b');
    expect(withoutCredentials('https://code.example.com/@scope/x and mail a@b')).toBe(
      'https://code.example.com/@scope/x and mail a@b',
    );
  });
});

describe('quotedUrl', () => {
  it('quotes a broken value without what could be a password before its last @', () => {
    expect(quotedUrl('user:pa/ss@host')).toBe('***@host');
    expect(quotedUrl('https://user:pa/ss@host')).toBe('***@host');
    expect(quotedUrl('ftp://u:p@host')).toBe('ftp://***@host');
    expect(quotedUrl('code.example.com')).toBe('code.example.com');
  });
});
