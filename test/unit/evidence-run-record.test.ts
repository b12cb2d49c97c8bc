import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDir } from '../../src/evidence/layout.js';
import { listRuns, readRunRecord, RunRecordSchema, type RunRecord } from '../../src/evidence/run-record.js';
import { writeJsonAtomic } from '../../src/evidence/write-json.js';
import { ValidationError } from '../../src/errors.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

function record(runId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: 1,
    runId,
    mode: 'run',
    task: { id: 'add-task', file: 'tasks/add-task.json', title: 'Add a task' },
    state: 'FAILED',
    reason: 'PRODUCT_FAILURE',
    message: 'AC-002 failed',
    tools: { elenchos: '0.1.0', node: 'v20.0.0', git: '2.39.5', verifier: 'kane-cli 0.8.17', agent: null },
    contract: { files: [{ path: 'tasks/add-task.json', sha256: 'a'.repeat(64), role: 'task' }] },
    configFingerprint: 'sha256:abc',
    startedAt: '2026-11-30T04:56:12.123Z',
    finishedAt: '2026-11-30T04:58:00.000Z',
    durationMs: 107_877,
    pid: 4242,
    host: 'ci-1',
    workspace: { path: '.elenchos/workspaces/x', base: 'b'.repeat(40), kept: false },
    attempts: [
      {
        number: 1,
        status: 'FAIL',
        kind: 'agent',
        criteria: [
          { id: 'AC-001', status: 'PASS', steps: [1] },
          { id: 'AC-002', status: 'FAIL', steps: [2, 3], verdict: { family: 'application_issue' } },
        ],
        summary: 'AC-002 failed',
        startedAt: '2026-11-30T04:56:13.000Z',
        durationMs: 50_000,
      },
    ],
    ...overrides,
  };
}

describe('run record', () => {
  it('accepts the stable core plus extension fields, and keeps them', async () => {
    const root = tempDir();
    const dir = runDir(root, '20261130-045612-123-aaaaaa');
    await writeJsonAtomic(path.join(dir, 'run.json'), { ...record('20261130-045612-123-aaaaaa'), costUsd: 1.5 });
    const read = await readRunRecord(dir);
    expect(read.state).toBe('FAILED');
    expect(read.costUsd).toBe(1.5);
    expect(read.attempts[0]?.criteria[1]?.verdict).toEqual({ family: 'application_issue' });
  });

  it('reports every problem at once with its JSON path', async () => {
    const dir = tempDir();
    const bad = { ...record('x'), schemaVersion: 2, state: 'DONE', attempts: [{ ...record('x').attempts[0], number: 0 }] };
    await writeJsonAtomic(path.join(dir, 'run.json'), bad);
    const error = await readRunRecord(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const details = (error as ValidationError).details.join('\n');
    expect(details).toMatch(/schemaVersion/);
    expect(details).toMatch(/state/);
    expect(details).toMatch(/attempts\[0\]\.number/);
  });

  it('refuses a VERIFIED run that carries a reason', () => {
    expect(RunRecordSchema.safeParse(record('x', { state: 'VERIFIED', reason: null })).success).toBe(true);
    expect(RunRecordSchema.safeParse(record('x', { state: 'VERIFIED', reason: 'INCONCLUSIVE' })).success).toBe(false);
  });

  it('lists runs newest first and reports unreadable folders without failing', async () => {
    const root = tempDir();
    expect(await listRuns(root)).toEqual({ runs: [], unreadable: [] });
    const ids = ['20261130-045612-123-aaaaaa', '20261201-000000-000-bbbbbb', '20261130-045612-124-cccccc'];
    for (const id of ids) await writeJsonAtomic(path.join(runDir(root, id), 'run.json'), record(id));
    mkdirSync(runDir(root, '20261129-000000-000-dddddd'), { recursive: true }); // crashed before run.json
    writeFiles(runDir(root, '20261128-000000-000-eeeeee'), { 'run.json': '{"schemaVersion":1' });
    writeFiles(root, { '.elenchos/runs/stray-file.txt': 'not a run' });

    const { runs, unreadable } = await listRuns(root);
    expect(runs.map((r) => r.runId)).toEqual(['20261201-000000-000-bbbbbb', '20261130-045612-124-cccccc', '20261130-045612-123-aaaaaa']);
    expect(unreadable.map((u) => u.runId)).toEqual(['20261129-000000-000-dddddd', '20261128-000000-000-eeeeee']);
    expect(unreadable[0]?.message).toMatch(/no such file/);
    expect(unreadable[1]?.message).toMatch(/invalid JSON/);
  });
});
