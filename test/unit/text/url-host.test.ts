// Where a URL sends, as the service reads it (RFC 3986), and the addresses two parsers read differently.
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../src/operations/index.js';
import { validateInput } from '../../../src/operations/engine/validate.js';
import { approvalPrompt } from '../../../src/policy/policy.js';
import { ambiguousHost, serviceHost, serviceOrigin } from '../../../src/text/url-host.js';

describe('serviceHost', () => {
  it('reads the host after the userinfo and before the port, lower case, international names as ASCII', () => {
    expect(serviceHost('https://hooks.slack.com/services/T0/B1/x')).toBe('hooks.slack.com');
    expect(serviceHost('https://user:pw@Hooks.Chat.Example:8443/x')).toBe('hooks.chat.example');
    expect(serviceHost('http://[::1]:8080/x')).toBe('[::1]');
    expect(serviceHost('https://bücher.example/')).toBe('xn--bcher-kva.example');
    expect(serviceOrigin('https://hooks.chat.example:443/x')).toBe('https://hooks.chat.example');
    expect(serviceOrigin('http://hooks.chat.example:8080/x')).toBe('http://hooks.chat.example:8080');
    expect(serviceHost('not a url')).toBeUndefined();
    expect(serviceHost('ftp://files.example/')).toBeUndefined();
  });
});

describe('ambiguousHost', () => {
  it('flags an address a browser and the service send to different hosts', () => {
    expect(ambiguousHost('https://hooks.slack.com\\@evil.example/services/x')).toEqual({
      browser: 'hooks.slack.com',
      service: 'evil.example',
    });
    expect(ambiguousHost('https://hooks.slack.com\\.evil.example/')).toBeDefined();
    expect(ambiguousHost('https://hooks.sla\tck.com/')).toBeDefined();
    expect(ambiguousHost(' https://evil.example/')).toBeDefined();
  });

  it('leaves ordinary addresses and other text alone', () => {
    for (const text of [
      'https://hooks.slack.com/services/T0/B1/x',
      'https://u:p@chat.example:8443/a?b=c#d',
      'http://[::1]:80/',
      'https://EXAMPLE.com',
      'deploy staging',
      'C:\\temp\\x',
    ]) {
      expect(ambiguousHost(text), text).toBeUndefined();
    }
  });

  it('is refused by validation, naming the field and both readings, so no prompt can show the wrong host', () => {
    const op = findOperation('set_integration')!;
    expect(() =>
      validateInput(op, {
        id: 'acme/web',
        slug: 'slack',
        settings: { webhook: 'https://hooks.slack.com\\@evil.example/services/x' },
      }),
    ).toThrow(
      /settings\.webhook: the address's host is ambiguous: a browser reads "hooks\.slack\.com", the service reads "evil\.example"/,
    );
  });

  it('an approval request shows where a webhook goes as the service reads it', () => {
    const op = findOperation('set_integration')!;
    const input = validateInput(op, {
      id: 'acme/web',
      slug: 'slack',
      settings: { webhook: 'https://x:y@hooks.chat.example/services/T0/B1/secret' },
    }) as Record<string, unknown>;
    const prompt = approvalPrompt(op, input, 'Why.');
    expect(prompt).toContain('webhook: <secret URL on "https://hooks.chat.example"');
    expect(prompt).not.toContain('T0/B1/secret');
  });
});
