import { describe, expect, it } from 'vitest';
import { judgeNeedsHuman } from '../../src/core/stored-runs/needs-human.js';
import type { Ack } from '../../src/evidence/acks.js';
import type { RunRecord } from '../../src/evidence/run-record.js';

let clock = 0;
const run = (state: string, reason: string | null, mode: 'run' | 'verify' = 'run', task = 't', tampering?: boolean): RunRecord =>
  ({
    ...(tampering === undefined ? {} : { tampering }),
    runId: `r${String(++clock).padStart(3, '0')}`,
    mode,
    task: { id: task, file: `${task}.json`, title: task },
    state,
    reason,
    message: reason ? `why ${reason}` : null,
  }) as unknown as RunRecord;
const ack = (upToRunId: string, task = 't'): Ack => ({
  schemaVersion: 1,
  taskId: task,
  taskFile: `${task}.json`,
  by: 'me',
  at: '2026-11-30T00:00:00.000Z',
  note: null,
  upToRunId,
  reasons: [],
});

describe('judgeNeedsHuman', () => {
  it.each([
    ['no runs', [], 0],
    ['two failures below a threshold of 3', [run('FAILED', 'PRODUCT_FAILURE'), run('ERROR', 'VERIFIER_ERROR')], 0],
    ['three failures in a row', [run('FAILED', 'PRODUCT_FAILURE'), run('ERROR', 'AGENT_FAILED'), run('FAILED', 'REPAIR_UNCHANGED')], 1],
    [
      'a VERIFIED run breaks the streak',
      [run('FAILED', 'PRODUCT_FAILURE'), run('FAILED', 'PRODUCT_FAILURE'), run('VERIFIED', null), run('FAILED', 'PRODUCT_FAILURE')],
      0,
    ],
    [
      'interrupted and abandoned runs neither count nor break',
      [
        run('FAILED', 'PRODUCT_FAILURE'),
        run('ERROR', 'INTERRUPTED'),
        run('FAILED', 'PRODUCT_FAILURE'),
        run('ERROR', 'ABANDONED'),
        run('FAILED', 'PRODUCT_FAILURE'),
      ],
      1,
    ],
    [
      'verify runs do not count towards the streak',
      [run('FAILED', 'PRODUCT_FAILURE', 'verify'), run('FAILED', 'PRODUCT_FAILURE', 'verify'), run('FAILED', 'PRODUCT_FAILURE', 'verify')],
      0,
    ],
    ['one tampering run is enough', [run('ERROR', 'CONTRACT_CHANGED')], 1],
    ['tampering caught in verify mode flags too', [run('ERROR', 'UNSTABLE_WORKSPACE', 'verify')], 1],
    ['a later VERIFIED does not clear tampering', [run('ERROR', 'UNSTABLE_WORKSPACE'), run('VERIFIED', null)], 1],
    // Records that say whether the run caught tampering are judged by that, not by the reason.
    ['an agent-only act (tampering: true) flags at once', [run('ERROR', 'UNSTABLE_WORKSPACE', 'run', 't', true)], 1],
    ['a window write (tampering: false) does not flag at once', [run('ERROR', 'UNSTABLE_WORKSPACE', 'run', 't', false)], 0],
    ['nor in verify mode', [run('ERROR', 'UNSTABLE_WORKSPACE', 'verify', 't', false)], 0],
    [
      'window writes count towards the streak',
      [
        run('ERROR', 'UNSTABLE_WORKSPACE', 'run', 't', false),
        run('ERROR', 'UNSTABLE_WORKSPACE', 'run', 't', false),
        run('FAILED', 'PRODUCT_FAILURE', 'run', 't', false),
      ],
      1,
    ],
    ['a RUNNING run is ignored', [run('RUNNING', null), run('RUNNING', null), run('RUNNING', null)], 0],
  ])('%s', (_what, runs, flagged) => {
    expect(judgeNeedsHuman(runs, [], 3).size).toBe(flagged);
  });

  it('names why, and what an ack acknowledges up to', () => {
    const runs = [run('ERROR', 'CONTRACT_CHANGED'), run('FAILED', 'PRODUCT_FAILURE'), run('FAILED', 'PRODUCT_FAILURE')];
    const flag = judgeNeedsHuman(runs, [], 2).get('t')!;
    expect(flag.lastRunId).toBe(runs[2]!.runId);
    expect(flag.reasons).toEqual([
      `run ${runs[0]!.runId} caught tampering (CONTRACT_CHANGED): why CONTRACT_CHANGED`,
      `the last 3 agent runs ended FAILED or ERROR (${runs[2]!.runId}, ${runs[1]!.runId}, ${runs[0]!.runId})`,
    ]);
  });

  it('an acknowledgement clears the runs up to it, per task; later runs count again', () => {
    const before = [run('ERROR', 'CONTRACT_CHANGED'), run('ERROR', 'CONTRACT_CHANGED', 'run', 'other')];
    expect(judgeNeedsHuman(before, [ack(before[0]!.runId)], 3).has('t')).toBe(false);
    expect(judgeNeedsHuman(before, [ack(before[0]!.runId)], 3).has('other')).toBe(true);
    const after = [...before, run('ERROR', 'UNSTABLE_WORKSPACE')];
    expect(judgeNeedsHuman(after, [ack(before[0]!.runId)], 3).get('t')?.reasons[0]).toContain('UNSTABLE_WORKSPACE');
    // Two acks: the newer cut-off wins whatever their order.
    expect(judgeNeedsHuman(after, [ack(after[2]!.runId), ack(before[0]!.runId)], 3).has('t')).toBe(false);
  });

  it('an ack that names no stored run of its task counts for nothing (a forged one far in the future)', () => {
    const runs = [run('ERROR', 'CONTRACT_CHANGED'), run('ERROR', 'UNSTABLE_WORKSPACE', 'run', 'other')];
    expect(judgeNeedsHuman(runs, [ack('99999999-999999-999-ffffff')], 3).has('t')).toBe(true);
    // Another task's run does not do either.
    expect(judgeNeedsHuman(runs, [ack(runs[1]!.runId)], 3).has('t')).toBe(true);
    expect(judgeNeedsHuman(runs, [ack(runs[0]!.runId)], 3).has('t')).toBe(false);
  });

  it('a threshold of 0 flags tampering only', () => {
    expect(judgeNeedsHuman([run('FAILED', 'PRODUCT_FAILURE'), run('FAILED', 'PRODUCT_FAILURE')], [], 0).size).toBe(0);
    expect(judgeNeedsHuman([run('ERROR', 'CONTRACT_CHANGED')], [], 0).size).toBe(1);
  });
});
