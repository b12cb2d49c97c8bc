// A minimal, valid run.json record for tests that seal or check run folders.
import type { RunRecord } from '../../src/evidence/run-record.js';

/** A RUNNING record of run `r1` of task `t`, with `overrides` on top. */
export function sampleRunRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: 1,
    runId: 'r1',
    mode: 'run',
    task: { id: 't', file: 'tasks/t.json', title: 'T' },
    state: 'RUNNING',
    reason: null,
    message: null,
    tools: { elenchos: '0', node: 'v20', git: '2', verifier: null, agent: null },
    contract: { files: [] },
    configFingerprint: 'x',
    startedAt: '2026-11-30T04:56:12.123Z',
    finishedAt: null,
    durationMs: null,
    pid: 1,
    host: 'h',
    workspace: { path: '.', base: 'b', kept: false },
    attempts: [],
    ...overrides,
  };
}

/** The same record as a finished, VERIFIED run. */
export function verifiedRunRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return sampleRunRecord({ state: 'VERIFIED', finishedAt: '2026-11-30T05:00:00.000Z', durationMs: 5, ...overrides });
}
