// The live progress lines of a verifier's steps: the step number once, no `@verifies` tag; the heading itself
// is kept as the verifier reported it everywhere else (events, evidence).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalReporter } from '../../src/reporters/terminal.js';
import { displayHeading } from '../../src/reporters/step-heading.js';

function lines(heading: string): string[] {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk) => (text += String(chunk)));
  const reporter = terminalReporter({ stream, now: () => 0 });
  reporter.onEvent({ type: 'verifier', attempt: 1, verifier: 'kane', progress: { kind: 'step-start', step: 1, heading } });
  reporter.onEvent({
    type: 'verifier',
    attempt: 1,
    verifier: 'kane',
    progress: { kind: 'step-end', step: 1, heading, status: 'passed', durationSeconds: 4 },
  });
  return text.trimEnd().split('\n');
}

describe('verifier step lines', () => {
  it('say the step number once and leave out the @verifies ids', () => {
    expect(lines('Step 1 — open the home page @verifies AC-001, AC-002')).toEqual([
      '[00:00.0]   [kane] step 1 open the home page …', // before: step 1 Step 1 — open the home page @verifies AC-001, AC-002 …
      '[00:00.0]   [kane] ✓ step 1 open the home page (4s)',
    ]);
  });

  it('say the step number alone when the heading says nothing more (a command verifier without a title)', () => {
    expect(lines('step 3')).toEqual(['[00:00.0]   [kane] step 1 …', '[00:00.0]   [kane] ✓ step 1 (4s)']);
  });

  it.each([
    ['Step 2: the task is listed @verifies AC-002', 'the task is listed'],
    ['step 3 - it saves', 'it saves'],
    ['the form is there @verifies ac-1', 'the form is there'],
    ['Stepping stones are shown', 'Stepping stones are shown'],
    ['Step 4 — counts @verifies AC-4 and the footer stays', 'counts'],
    ['Step 5 — email me@verifies.example is kept', 'email me@verifies.example is kept'],
    ['@verifies AC-001', ''],
    ['step 3', ''],
  ])('%s → %s', (heading, shown) => {
    expect(displayHeading(heading)).toBe(shown);
  });
});
