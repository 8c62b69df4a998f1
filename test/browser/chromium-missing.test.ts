// The browser tests on a machine without Chromium: they fail, naming the Debian package and the command that installs it.
import { describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../helpers/browser-host.mjs';

describe('headless Chromium for the browser tests', () => {
  it('is found as the chromium program on PATH', () => {
    expect(chromiumPath('/nowhere:/usr/bin')).toBe('/usr/bin/chromium');
  });

  it('missing, fails with what to install and how, rather than passing without a browser', async () => {
    await expect(launchChromium('/nowhere')).rejects.toThrow(
      /The browser tests need Chromium: no program named chromium on PATH \(\/nowhere\)\. .*\n {2}apt-get update && apt-get install -y --no-install-recommends chromium\n/,
    );
  });
});
