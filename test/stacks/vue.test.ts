// Vue, as `create-vue` writes it (TypeScript, Vue Router, Playwright), untouched, then `npm install` as its
// own next steps say. Its playwright.config.ts points baseURL at a fixed localhost:5173 and runs three
// browsers' projects; the verifier drives the app at the run's own port, in Chromium.
import { describe, it } from 'vitest';
import { noteEdits, noteSpec, scaffold } from './scaffold.js';
import { expectVerifiedLoop, hasChromium } from './stack.js';

describe.runIf(hasChromium)('Vue (create-vue)', () => {
  it('create-vue → init → check → doctor → run: FAIL → repair → VERIFIED → apply → verify: VERIFIED', async () => {
    const stack = await scaffold({
      name: 'vue',
      create: ['npx', '-y', 'create-vue@3.24.0', '--ts', '--router', '--playwright', 'app'],
      install: ['npm', 'install'],
      pm: 'npm',
      criteria: ['the home page is the scaffold', 'the home page shows the note'],
      spec: noteSpec('You did it!'),
      edits: noteEdits('src/App.vue', '      <nav>'),
    });
    await expectVerifiedLoop(stack);
  });
});
