// The command verifier's protocol reader on hand-built events: order and shape.
import { describe, expect, it } from 'vitest';
import { ProtocolState } from '../../src/verifiers/command/protocol.js';

function read(events: Record<string, unknown>[]) {
  const progress: unknown[] = [];
  const state = new ProtocolState((p) => progress.push(p));
  for (const e of events) state.feed(e);
  return { state, progress };
}

describe('ProtocolState', () => {
  it('reads a well-formed report: steps, done, live progress', () => {
    const { state, progress } = read([
      { type: 'step_start', step: 1, title: 'A' },
      { type: 'step_end', step: 1, title: 'A', status: 'passed', seconds: 2 },
      { type: 'step_start', step: 2 },
      { type: 'step_end', step: 2, status: 'failed', failure: 'product', message: 'no' },
      { type: 'step_end', step: 3, status: 'skipped' },
      { type: 'done', status: 'failed' },
    ]);
    expect(state.problems).toEqual([]);
    expect(state.done).toBe('failed');
    expect([...state.steps.values()]).toEqual([
      { step: 1, title: 'A', status: 'passed', failure: null, message: null },
      { step: 2, title: null, status: 'failed', failure: 'product', message: 'no' },
      { step: 3, title: null, status: 'skipped', failure: null, message: null },
    ]);
    expect(progress).toEqual([
      { kind: 'step-start', step: 1, heading: 'A' },
      { kind: 'step-end', step: 1, heading: 'A', status: 'passed', durationSeconds: 2 },
      { kind: 'step-start', step: 2, heading: 'step 2' },
      { kind: 'step-end', step: 2, heading: 'step 2', status: 'failed', durationSeconds: null },
    ]);
  });

  it('a failed step without a failure kind is "unknown"; an unknown kind is too', () => {
    const { state } = read([
      { type: 'step_start', step: 1 },
      { type: 'step_end', step: 1, status: 'failed', failure: 'cosmic' },
    ]);
    expect(state.steps.get(1)?.failure).toBe('unknown');
  });

  it.each([
    [[{ type: 'step_end', step: 1, status: 'passed' }], 'step 1 ended passed without a step_start'],
    [[{ type: 'step_end', step: 1, status: 'failed', failure: 'product' }], 'step 1 ended failed without a step_start'],
    [[{ type: 'step_start', step: 0 }], 'a step_start without a valid "step" (1-based): {"type":"step_start","step":0}'],
    [[{ type: 'step_start', step: 1.5 }], 'a step_start without a valid "step" (1-based): {"type":"step_start","step":1.5}'],
    [
      [
        { type: 'step_start', step: 1 },
        { type: 'step_end', step: 1, status: 'ok' },
      ],
      'a step_end without a valid "step" (1-based) and "status" (passed|failed|skipped): {"type":"step_end","step":1,"status":"ok"}',
    ],
    [
      [
        { type: 'step_start', step: 1 },
        { type: 'step_end', step: 1, status: 'passed' },
        { type: 'step_end', step: 1, status: 'passed' },
      ],
      'step 1 was reported twice',
    ],
    [
      [
        { type: 'done', status: 'passed' },
        { type: 'step_start', step: 1 },
      ],
      'an event after "done": step_start',
    ],
    [[{ type: 'done', status: 'ok' }], '"done" without a status of passed or failed'],
    [
      [{ type: 'step_end', step: 0, status: 'passed' }],
      'a step_end without a valid "step" (1-based) and "status" (passed|failed|skipped): {"type":"step_end","step":0,"status":"passed"}',
    ],
    [[{ type: 'step_start', step: '1' }], 'a step_start without a valid "step" (1-based): {"type":"step_start","step":"1"}'],
    [
      [{ type: 'step_start', step: -1, title: 'x'.repeat(300) }],
      `a step_start without a valid "step" (1-based): ${JSON.stringify({ type: 'step_start', step: -1, title: 'x'.repeat(300) }).slice(0, 200)}`,
    ],
    [
      [{ type: 'step_end', status: 'failed', message: 'y'.repeat(300) }],
      `a step_end without a valid "step" (1-based) and "status" (passed|failed|skipped): ${JSON.stringify({ type: 'step_end', status: 'failed', message: 'y'.repeat(300) }).slice(0, 200)}`,
    ],
  ])('%j is a problem: %s', (events, problem) => {
    expect(read(events).state.problems).toEqual([problem]);
  });

  it('a skipped step may end without a start; unknown events are ignored', () => {
    const { state } = read([
      { type: 'step_end', step: 2, status: 'skipped' },
      { type: 'log', step: 9 },
      { type: 'done', status: 'passed' },
    ]);
    expect(state.problems).toEqual([]);
    expect(state.done).toBe('passed');
  });
});
