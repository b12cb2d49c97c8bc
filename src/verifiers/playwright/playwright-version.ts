// The @playwright/test version the project resolves (node_modules from the cwd upwards), for the run record.
import path from 'node:path';
import { readJsonFile } from '../../util/json-file.js';

/** `@playwright/test`'s version as Node would resolve it from `cwd`, or null when it is not installed. */
export async function playwrightVersion(cwd: string): Promise<string | null> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', '@playwright', 'test', 'package.json');
    const read = await readJsonFile(file).catch((error: { cause?: NodeJS.ErrnoException }) =>
      error.cause?.code === 'ENOENT' ? null : { value: null },
    );
    if (read !== null) {
      const version = (read.value as { version?: unknown } | null)?.version;
      return typeof version === 'string' ? version : null;
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * The @playwright/test versions Elenchos supports: from the oldest it was built on to the newest its
 * CI has tested (the JSON report, the listing, the config merge and the trace's pictures:
 * test/stacks/playwright-newest.test.ts, against the version pinned in test/fixtures/playwright-newest/
 * and the registry's latest). That test fails when the registry has a newer release than `newestTested`:
 * test it, then raise `newestTested` and the fixture's version and lock together.
 */
export const PLAYWRIGHT_SUPPORTED = { oldest: '1.58.0', newestTested: '1.65.2' } as const;

/** Where `version` stands against the supported range; null when it is not a version at all. */
export function playwrightSupport(version: string): 'supported' | 'too-old' | 'newer-than-tested' | null {
  const parsed = parseVersion(version);
  if (!parsed) return null;
  if (compare(parsed, parseVersion(PLAYWRIGHT_SUPPORTED.oldest)!) < 0) return 'too-old';
  if (compare(parsed, parseVersion(PLAYWRIGHT_SUPPORTED.newestTested)!) > 0) return 'newer-than-tested';
  return 'supported';
}

/** `1.65.2`, `Version 1.65.2`, `1.66.0-alpha-…` (a pre-release counts as its release). */
function parseVersion(text: string): [number, number, number] | null {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
