// git's own housekeeping while the verifier looks. A commit of thousands of files leaves more loose
// objects than `gc.auto` allows, so git's next command runs `gc --auto` (in the background after a
// commit): it packs the objects and refs, and its repack runs `update-server-info`, which writes
// `.git/info/refs`. Here it runs inside the verifier window of both attempts, on the main
// repository that every worktree shares, while the app is up and the browser is about to look.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitSync, tempDir } from '../helpers/temp.js';
import { EXPRESS_APP, EXPRESS_EDITS, EXPRESS_SPEC } from './express-task.js';
import { expectVerifiedLoop, hasChromium, makeStack } from './stack.js';

/** Asset files, enough that git's estimate of loose objects (objects/17 × 256) passes gc.auto's 6,700. */
function assets(): Record<string, string> {
  const files: Record<string, string> = {};
  let inSeventeen = 0;
  for (let i = 0; inSeventeen < 30; i++) {
    const content = `asset ${i}\n`;
    const id = createHash('sha1')
      .update(`blob ${Buffer.byteLength(content)}\0${content}`)
      .digest('hex');
    if (id.startsWith('17')) inSeventeen++;
    files[`assets/${String(Math.floor(i / 200)).padStart(2, '0')}/${i}.txt`] = content;
  }
  return files;
}

const wait = async (what: string, ready: () => boolean, exited: () => boolean) => {
  while (!ready()) {
    if (exited()) throw new Error(`elenchos ended before ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe.runIf(hasChromium)('git housekeeping during the verifier window', () => {
  it('gc --auto, then gc, on the shared repository while the verifier looks: VERIFIED, nothing flagged', async () => {
    const files = assets();
    // The first commit of so many files would start git's gc --auto at once, in the background (as it
    // did for a user); here it is held back (gc.auto 0 for the commands that build the
    // repository, as environment config: nothing is written to the repository's own config) so that
    // it runs inside the verifier window, with git's defaults.
    Object.assign(process.env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'gc.auto', GIT_CONFIG_VALUE_0: '0' });
    let stack: ReturnType<typeof makeStack>;
    try {
      stack = makeStack({
        app: 'express',
        appConfig: EXPRESS_APP,
        spec: EXPRESS_SPEC,
        criteria: ['the page lists the tasks', 'done tasks are marked'],
        edits: EXPRESS_EDITS,
        files,
      });
    } finally {
      for (const name of ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0']) delete process.env[name];
    }
    const { root } = stack;
    const gitDir = path.join(root, '.git');
    expect(Object.keys(files).length).toBeGreaterThan(6_000);
    expect(existsSync(path.join(gitDir, 'info/refs'))).toBe(false);
    expect(existsSync(path.join(gitDir, 'packed-refs'))).toBe(false);
    const pause = tempDir('elenchos-pause-');
    const at = (name: string) => path.join(pause, name);
    const runs = path.join(root, '.elenchos/runs');
    const repairStarted = () =>
      existsSync(runs) && readdirSync(runs).some((id) => existsSync(path.join(runs, id, 'attempts/02/prompt.md')));
    // None of them exists before the run, so each one found was written inside a verifier window.
    const written = () => ['info/refs', 'packed-refs', 'objects/info/packs'].filter((p) => existsSync(path.join(gitDir, p)));
    const housekeeping: string[] = [];

    await expectVerifiedLoop(stack, { ELENCHOS_TEST_PAUSE_AT: 'app', ELENCHOS_TEST_PAUSE_DIR: pause }, async ({ exited }) => {
      // Attempt 1: the app is ready, the verifier waits for it: git decides on its own to collect.
      await wait('the app of attempt 1 was ready', () => existsSync(at('app.reached')), exited);
      gitSync(root, 'gc', '--auto', '--quiet');
      housekeeping.push(`attempt 1: ${written().join(', ')}`);
      rmSync(at('app.reached'));
      writeFileSync(at('app.go'), '');
      // Attempt 2 (the repair): a full gc this time, as a user's or a scheduler's would run.
      await wait('the repair started', repairStarted, exited);
      rmSync(at('app.go'));
      await wait('the app of attempt 2 was ready', () => existsSync(at('app.reached')), exited);
      gitSync(root, 'gc', '--quiet');
      housekeeping.push(`attempt 2: ${written().join(', ')}`);
      writeFileSync(at('app.go'), '');
    });
    // git did write its housekeeping files inside the window (else this test proves nothing).
    // (gc --auto packed the refs; the full gc's repack ran update-server-info: info/refs, the pack list.)
    expect(housekeeping).toEqual([
      expect.stringMatching(/^attempt 1: .*packed-refs/),
      'attempt 2: info/refs, packed-refs, objects/info/packs',
    ]);
  });
});
