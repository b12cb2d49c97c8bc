// `elenchos run` end to end with the Gemini CLI and OpenCode adapters: their fakes do the work, the fake kane-cli verifies it.
// @module-tag slow
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { checkoutFingerprint, FIXTURES, makeProject, onlyRun, processesInside } from '../helpers/project.js';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

describe('elenchos run with gemini and opencode', () => {
  it.each([
    ['gemini', { ok: true, costUsd: null, turns: null, tokens: { input: 3900, output: 330 } }],
    ['opencode', { ok: true, costUsd: 0.0203, turns: 1, tokens: { input: 3000, output: 360 } }],
  ])(
    'VERIFIED with the %s agent adapter, its cost and tokens kept in attempt.json',
    (type, agent) => {
      const project = makeProject({ config: { agent: { type, command: path.join(FIXTURES, 'bin', type), timeoutSeconds: 30 } } });
      roots.push(project.root);
      const before = checkoutFingerprint(project.root);
      const result = runCli(['run', 'tasks/add-task.json'], project.root, project.env);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('VERIFIED');
      expect(checkoutFingerprint(project.root)).toEqual(before);
      const { dir, record } = onlyRun(project.root);
      expect(record.tools.agent).toBe(type);
      const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
      expect(attempt.agent).toMatchObject({ ...agent, summary: 'Added the form and the list.' });
    },
    120_000,
  );
});
