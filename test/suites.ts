// Which suite runs a test file. Every file under test/ (but test/stacks/) runs in `npm test`, unless its
// header carries Vitest's file tag
//
//     // @module-tag slow
//
// which moves it to `npm run test:slow` (vitest.slow.config.ts). The tag is Vitest's own (its cases carry
// the tag "slow", so `--tags-filter` sees it too); the configs read it from the file so that the other
// suite does not even load the file. A file is in exactly one suite by construction, and `.ci/run` runs
// both, so every case runs somewhere (`node scripts/test-count.js` counts them).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));

/** A comment line `// @module-tag slow` (or ` * @module-tag slow` in a block comment): the pattern Vitest reads. */
const SLOW_TAG = /^\s*(?:\/\/|\*)\s*@module-tag\s+slow\b/m;

/** The tag definitions both configs declare (Vitest refuses a file tag it does not know). */
export const TAGS = [{ name: 'slow', description: 'many real CLI, browser or install runs: `npm run test:slow`' }];

/** Every test file of the fast and slow suites (the real-stack suite, test/stacks/, is apart). */
const TEST_FILES = fg.sync('test/**/*.test.ts', { cwd: root, ignore: ['test/stacks/**', '**/node_modules/**'] }).sort();

/** The files tagged slow, relative to the repository. */
export const SLOW_FILES: readonly string[] = TEST_FILES.filter((file) => SLOW_TAG.test(readFileSync(path.join(root, file), 'utf8')));
