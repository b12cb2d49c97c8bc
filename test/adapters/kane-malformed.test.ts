// Crafted `testmd run` streams, replayed by the fake kane-cli through the adapter (a real child process):
// every count agrees and the exit code is 0, yet the stream breaks Kane's order or shape. None may PASS.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kaneAdapter } from '../../src/verifiers/kane/adapter.js';
import { tempDir } from '../helpers/temp.js';
import { kaneFixture, simpleTest } from './kane-harness.js';

const heading = (i: number) => `Step ${i} — check ${i}`;
const start = (i: number) => JSON.stringify({ type: 'test_md_step_start', step_index: i, heading: heading(i), ref: null });
const runEnd = JSON.stringify({ type: 'run_end', status: 'passed', result_code: 100, reason_code: 'success.complete' });
const end = (i: number) => JSON.stringify({ type: 'test_md_step_end', step_index: i, status: 'passed', duration_s: 1 });
const closing = [
  JSON.stringify({
    type: 'test_md_summary',
    overall_status: 'passed',
    steps: { total: 2, passed: 2, failed: 0, skipped: 0 },
    cancelled: false,
  }),
  JSON.stringify({ type: 'test_md_done', overall_status: 'passed', session_id: 'sid' }),
];

async function replay(lines: string[]) {
  const dir = tempDir('elenchos-capture-');
  const prefix = path.join(dir, 'crafted');
  writeFileSync(`${prefix}.ndjson`, `${lines.join('\n')}\n`);
  writeFileSync(`${prefix}.stderr.txt`, '');
  writeFileSync(`${prefix}.exit.txt`, 'exit=0\n');
  const fixture = kaneFixture({ text: simpleTest(2), name: 'crafted_test.md', env: { FAKE_KANE_REPLAY: prefix } });
  return kaneAdapter.verify(fixture.ctx);
}

describe('kane adapter: malformed streams never pass', () => {
  it('the well-formed stream is a PASS (the attacks below change one thing each)', async () => {
    expect((await replay([start(1), runEnd, end(1), start(2), runEnd, end(2), ...closing])).status).toBe('PASS');
  });

  it.each([
    [
      'a step_end passed with no step_start for that step',
      [start(1), runEnd, end(1), end(2), ...closing],
      'test_md_step_end for step 2, which never started',
    ],
    [
      'a step_start after test_md_done',
      [start(1), runEnd, end(1), start(2), runEnd, end(2), ...closing, start(2)],
      'test_md_step_start after test_md_done',
    ],
    [
      'a step_end whose "status" is repeated (failed, then passed)',
      [start(1), runEnd, end(1), start(2), runEnd, end(2).replace('"status":"passed"', '"status":"failed","status":"passed"'), ...closing],
      'a test_md_step_end event repeats the key "status"',
    ],
    [
      'a run_end whose nested verdict repeats "confirmed"',
      [start(1), runEnd.replace('}', ',"verdict":{"confirmed":true,"confirmed":false}}'), end(1), start(2), runEnd, end(2), ...closing],
      'a run_end event repeats the key "confirmed"',
    ],
    [
      // Without the cap rule this stream would PASS: the cut line could have said anything (a failed step).
      'an extra event longer than the line cap (5 Mi characters) among passing ones',
      [
        start(1),
        runEnd,
        end(1),
        JSON.stringify({ type: 'log', message: 'x'.repeat(5 * 1024 * 1024) }),
        start(2),
        runEnd,
        end(2),
        ...closing,
      ],
      'kane-cli printed a line longer than Elenchos accepts (4 Mi characters)',
    ],
  ])('INCONCLUSIVE: %s', async (_what, lines, message) => {
    const result = await replay(lines);
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.summary).toContain(message);
  });
});
