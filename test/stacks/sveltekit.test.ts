// SvelteKit, as `sv create` writes it (the demo template, TypeScript, the Playwright add-on), untouched:
// its tsconfig.json has `//` comments and extends `.svelte-kit/tsconfig.json`, which the scaffold ignores
// and `vite dev` (re)writes at every start.
import { describe, it } from 'vitest';
import { noteEdits, noteSpec, scaffold } from './scaffold.js';
import { expectVerifiedLoop, hasChromium } from './stack.js';

describe.runIf(hasChromium)('SvelteKit (sv create)', () => {
  it('sv create → init → check → doctor → run: FAIL → repair → VERIFIED → apply → verify: VERIFIED', async () => {
    const stack = await scaffold({
      name: 'sveltekit',
      create: [
        'npx',
        '-y',
        'sv@0.17.1',
        'create',
        '--template',
        'demo',
        '--types',
        'ts',
        '--add',
        'playwright',
        '--install',
        'npm',
        '--no-dir-check',
        'app',
      ],
      pm: 'npm',
      criteria: ['the home page is the demo app', 'the home page shows the note'],
      spec: noteSpec('to your new SvelteKit app'),
      edits: noteEdits('src/routes/+page.svelte', '\t<Counter />'),
    });
    await expectVerifiedLoop(stack);
  });
});
