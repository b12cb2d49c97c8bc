// What a new user's walkthrough (a Vite app, a Next.js 16 app, a Kane task) met, each fixed: a Next.js dev
// server that blocked its own client JavaScript named as the likely cause of a FAIL; `show` speaking of Kane
// credits for a run Kane never saw.
// @module-tag slow
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun } from '../helpers/project.js';

// What `next dev` 16 prints when a browser at 127.0.0.1 asks for its dev resources.
const NEXT_BLOCKED =
  '⚠ Blocked cross-origin request to Next.js dev resource /_next/hmr from "127.0.0.1". To allow this, configure "allowedDevOrigins" in next.config';

describe.concurrent('a FAIL with a Next.js dev server that blocked its own resources', { timeout: 180_000 }, () => {
  it("says in the attempt's summary that the likely cause is app.url's host, and only when the app log has Next's warning", async () => {
    // A stand-in for `next dev` (the app is run by it, at 127.0.0.1): Next 16's warning, then the tiny app.
    const nextDev = `#!/bin/sh\nshift\necho '${NEXT_BLOCKED}'\ncd .. && exec node app.js "$@"\n`;
    const blocked = makeProject({
      config: { app: { command: 'cd bin && sh next dev --port {port}', url: 'http://127.0.0.1:{port}/', readyTimeoutSeconds: 10 } },
      files: { 'bin/next': nextDev },
    });
    const run = await runMain(['verify', 'tasks/add-task.json'], blocked.root, blocked.env);
    expect(run.code, run.stdout + run.stderr).toBe(1); // the page lacks "New task": a FAIL either way
    const summary = (onlyRun(blocked.root).record.attempts[0] as { summary: string }).summary;
    expect(summary).toContain('likely a configuration cause, not the product'); // before: only the verifier's words
    expect(summary).toContain('for "127.0.0.1"');
    expect(summary).toContain('http://localhost:{port}/');
    expect(run.stdout).toContain('likely a configuration cause');
    const { dir } = onlyRun(blocked.root);
    expect(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8')).toContain('likely a configuration cause');

    const plain = makeProject();
    const quiet = await runMain(['verify', 'tasks/add-task.json'], plain.root, plain.env);
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).not.toContain('likely a configuration cause');

    // The app's log is the agent's code talking: an app not run by next dev printing Next's words gets no hint.
    const mimic = makeProject({
      config: { app: { command: `echo '${NEXT_BLOCKED}'; exec node app.js --port {port}`, readyTimeoutSeconds: 10 } },
    });
    const mimicked = await runMain(['verify', 'tasks/add-task.json'], mimic.root, mimic.env);
    expect(mimicked.code).toBe(1);
    expect(mimicked.stdout).not.toContain('likely a configuration cause');
  });
});

describe.concurrent('show', { timeout: 180_000 }, () => {
  it('names Kane credits only for a run whose verifier is Kane', async () => {
    const command = makeProject({ config: { verifier: { type: 'command', command: path.join(FIXTURES, 'bin/fake-verifier') } } });
    const run = await runMain(['run', 'tasks/add-task.json'], command.root, command.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const shown = (await runMain(['show', 'latest'], command.root, command.env)).stdout;
    expect(shown).toMatch(/^spent: agent reported no cost nor usage$/m); // a command agent: not "0 turn(s), 0 input / 0 output tokens"
    expect(shown).not.toContain('Kane'); // before: "Kane 0 credit(s)"

    const kane = makeProject();
    expect((await runMain(['run', 'tasks/add-task.json'], kane.root, kane.env)).code).toBe(0);
    expect((await runMain(['show', 'latest'], kane.root, kane.env)).stdout).toMatch(
      /^spent: agent reported no cost nor usage, Kane \d+(\.\d+)? credit\(s\)$/m,
    );
  });
});
