import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  attemptDir,
  attemptName,
  attemptPaths,
  createAttemptDirs,
  runDir,
  runsDir,
  workspaceDir,
  workspacesDir,
} from '../../src/evidence/layout.js';
import { writeJsonAtomic } from '../../src/evidence/write-json.js';
import { tempDir } from '../helpers/temp.js';

describe('evidence layout', () => {
  it('names every folder and file', () => {
    expect(runsDir('/r')).toBe(path.join('/r', '.elenchos', 'runs'));
    expect(runDir('/r', 'id')).toBe(path.join('/r', '.elenchos', 'runs', 'id'));
    expect(workspacesDir('/r')).toBe(path.join('/r', '.elenchos', 'workspaces'));
    expect(workspaceDir('/r', 'id')).toBe(path.join('/r', '.elenchos', 'workspaces', 'id'));
    expect(attemptDir('/run', 1)).toBe(path.join('/run', 'attempts', '01'));
    expect(attemptDir('/run', 12)).toBe(path.join('/run', 'attempts', '12'));
    expect(() => attemptName(0)).toThrow(RangeError);
    const p = attemptPaths('/a');
    expect(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, path.relative('/a', v).split(path.sep).join('/')]))).toEqual({
      dir: '',
      attemptJson: 'attempt.json',
      agentLog: 'agent.log',
      appLog: 'app.log',
      setupLog: 'setup.log',
      verifierDir: 'verifier',
      verifierEvents: 'verifier/events.ndjson',
      verifierStderr: 'verifier/stderr.log',
      kaneDir: 'verifier/kane',
      workspaceDir: 'workspace',
      diffPatch: 'workspace/diff.patch',
      untrackedTar: 'workspace/untracked.tar.gz',
      baseTxt: 'workspace/base.txt',
    });
  });

  it('creates an attempt’s folders, idempotently', async () => {
    const run = tempDir();
    const paths = await createAttemptDirs(run, 2);
    await createAttemptDirs(run, 2);
    expect(existsSync(paths.kaneDir)).toBe(true);
    expect(existsSync(paths.workspaceDir)).toBe(true);
    expect(readdirSync(path.join(run, 'attempts'))).toEqual(['02']);
  });
});

describe('writeJsonAtomic', () => {
  it('writes pretty JSON with a trailing newline, replaces the old file and leaves no temp file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sub', 'run.json');
    await writeJsonAtomic(file, { a: 1 });
    await writeJsonAtomic(file, { a: 2, b: [1] });
    expect(readFileSync(file, 'utf8')).toBe('{\n  "a": 2,\n  "b": [\n    1\n  ]\n}\n');
    expect(readdirSync(path.dirname(file))).toEqual(['run.json']);
  });

  it('keeps the previous content when the new value cannot be serialised', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'run.json');
    writeFileSync(file, '{"ok":true}\n');
    await expect(writeJsonAtomic(file, { n: 1n })).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('{"ok":true}\n');
    expect(readdirSync(dir)).toEqual(['run.json']);
  });
});
