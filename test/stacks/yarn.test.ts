// A yarn (classic) repository: Vite's Vue template as create-vite writes it, installed with yarn
// (its yarn.lock committed). init writes `yarn install --frozen-lockfile` for every run's setup and
// `yarn dev --port {port}` for the app.
import path from 'node:path';
import { describe, it } from 'vitest';
import { noteEdits, noteSpec, scaffold, toolPath } from './scaffold.js';
import { expectVerifiedLoop, hasChromium, STACKS_STATE } from './stack.js';

describe.runIf(hasChromium)('a yarn repository (create-vite, Vue, yarn install)', () => {
  it('create-vite, yarn install → init → check → doctor → run: FAIL → repair → VERIFIED → apply → verify: VERIFIED', async () => {
    // yarn 1 run as root caches in /usr/local/share/.cache/yarn, outside HOME, which setup's sandbox keeps
    // read-only: its cache is named where the sandbox lets setup write (docs/getting-started.md).
    const env = { ...toolPath('yarn', '1.22.22'), YARN_CACHE_FOLDER: path.join(STACKS_STATE, 'yarn-cache') };
    const stack = await scaffold({
      name: 'yarn',
      env,
      // Not `yarn create`: yarn 1 installs the scaffolder globally (into /usr/bin as root) and takes no version.
      create: ['npx', '-y', 'create-vite@9.3.0', 'app', '--template', 'vue-ts', '--no-interactive'],
      install: ['yarn', 'install'],
      pm: 'yarn',
      criteria: ['the home page is the scaffold', 'the home page shows the note'],
      spec: noteSpec('Get started'),
      edits: noteEdits('src/components/HelloWorld.vue', '      <h1>Get started</h1>'),
    });
    await expectVerifiedLoop(stack, env);
  });
});
