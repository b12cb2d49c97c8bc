// Angular, as `ng new` writes it (@angular/cli 21, the newest major for Node 20; defaults, no SSR), untouched,
// installed by ng new itself. It has no Playwright: the user adds it as getting-started says. init writes
// `npm run start -- --port {port}` (`ng serve`).
import { describe, it } from 'vitest';
import { noteEdits, noteSpec, scaffold } from './scaffold.js';
import { expectVerifiedLoop, hasChromium } from './stack.js';

describe.runIf(hasChromium)('Angular (ng new)', () => {
  it('ng new → init → check → doctor → run: FAIL → repair → VERIFIED → apply → verify: VERIFIED', async () => {
    const stack = await scaffold({
      name: 'angular',
      create: ['npx', '-y', '@angular/cli@21.2.29', 'new', 'app', '--defaults', '--ssr=false', '--skip-git', '--ai-config=none'],
      pm: 'npm',
      criteria: ['the home page is the scaffold', 'the home page shows the note'],
      spec: noteSpec('Hello, app'),
      edits: noteEdits('src/app/app.html', '      <h1>Hello, {{ title() }}</h1>'),
      // `ng serve` creates `.angular/` holding only the ignored `.angular/cache/`: no write (git tracks no folder).
      // ng serve compiles the app on its first request.
      testTimeoutMs: 120_000,
    });
    await expectVerifiedLoop(stack);
    // ng new and its install alone take 2 to 4 minutes on two busy cores, and ng serve starts slowly.
  }, 1_200_000);
});
