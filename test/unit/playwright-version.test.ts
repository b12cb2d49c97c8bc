// Which @playwright/test versions Elenchos supports, and what doctor says outside that range.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPlaywrightVersion } from '../../src/core/doctor/tool-checks.js';
import { PLAYWRIGHT_SUPPORTED, playwrightSupport } from '../../src/verifiers/playwright/playwright-version.js';
import { tempDir } from '../helpers/temp.js';

/** A project whose node_modules holds @playwright/test at `version`. */
function projectWith(version: string): string {
  const root = tempDir('elenchos-pwver-');
  mkdirSync(path.join(root, 'node_modules/@playwright/test'), { recursive: true });
  writeFileSync(path.join(root, 'node_modules/@playwright/test/package.json'), JSON.stringify({ name: '@playwright/test', version }));
  return root;
}

describe('the supported @playwright/test range', () => {
  it('is >=1.58 up to the newest tested one, read as numbers', () => {
    expect(PLAYWRIGHT_SUPPORTED).toEqual({ oldest: '1.58.0', newestTested: '1.65.2' });
    expect(playwrightSupport('1.58.2')).toBe('supported');
    expect(playwrightSupport('Version 1.65.2')).toBe('supported');
    expect(playwrightSupport('1.60.10')).toBe('supported');
    expect(playwrightSupport('1.57.9')).toBe('too-old');
    expect(playwrightSupport('1.9.0')).toBe('too-old'); // not a string comparison
    expect(playwrightSupport('1.65.3')).toBe('newer-than-tested');
    expect(playwrightSupport('1.100.0')).toBe('newer-than-tested');
    expect(playwrightSupport('2.0.0-alpha-1')).toBe('newer-than-tested');
    expect(playwrightSupport('unknown')).toBeNull();
  });

  it('doctor is ok inside the range and warns, with the fix, outside it', async () => {
    expect(await checkPlaywrightVersion(projectWith('1.65.2'), 'Version 1.65.2')).toMatchObject({ status: 'ok' });
    expect(await checkPlaywrightVersion(projectWith('1.58.2'), 'Version 1.58.2')).toMatchObject({
      status: 'ok',
      message: '@playwright/test 1.58.2 (supported: >=1.58.0, tested up to 1.65.2)',
    });
    expect(await checkPlaywrightVersion(projectWith('1.52.0'), 'Version 1.52.0')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('@playwright/test 1.52.0 is older than Elenchos supports (>=1.58.0, tested up to 1.65.2)'),
      fix: 'upgrade it: npm install -D @playwright/test@latest',
    });
    expect(await checkPlaywrightVersion(projectWith('1.66.0'), 'Version 1.66.0')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('newer than Elenchos was tested with'),
      fix: expect.stringContaining('npm install -D @playwright/test@1.65.2'),
    });
    // No package.json to read (a verifier.command elsewhere): the runner's own line decides.
    expect(await checkPlaywrightVersion(tempDir('elenchos-pwver-'), 'Version 1.57.0')).toMatchObject({ status: 'warn' });
  });
});
