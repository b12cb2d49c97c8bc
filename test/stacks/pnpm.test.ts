// A pnpm repository: Vite's React template as `pnpm create vite` writes it, installed with pnpm (its
// pnpm-lock.yaml committed). init writes `pnpm install --frozen-lockfile` for every run's setup and
// `pnpm run dev --port {port}` (pnpm passes a `--` on to the script) for the app.
import { describe, it } from 'vitest';
import { noteEdits, noteSpec, scaffold, toolPath } from './scaffold.js';
import { expectVerifiedLoop, hasChromium } from './stack.js';

describe.runIf(hasChromium)('a pnpm repository (pnpm create vite, React)', () => {
  it('pnpm create vite → init → check → doctor → run: FAIL → repair → VERIFIED → apply → verify: VERIFIED', async () => {
    const env = toolPath('pnpm', '10.34.9');
    const stack = await scaffold({
      name: 'pnpm',
      env,
      create: ['pnpm', 'create', 'vite@9.3.0', 'app', '--template', 'react-ts', '--no-interactive'],
      install: ['pnpm', 'install'],
      pm: 'pnpm',
      criteria: ['the home page is the scaffold', 'the home page shows the note'],
      spec: noteSpec('Get started'),
      edits: noteEdits('src/App.tsx', '          <h1>Get started</h1>'),
    });
    await expectVerifiedLoop(stack, env);
  });
});
