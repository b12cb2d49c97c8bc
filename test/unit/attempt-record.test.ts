// attempt.json read back through its schema: each verifier's details told apart by `verifier` (none:
// Playwright), every problem of a bad record listed, and a bad record shown like a missing one.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAttemptFile, type AttemptFile } from '../../src/evidence/attempt-record.js';
import { attemptDir, attemptPaths } from '../../src/evidence/layout.js';
import { writeJsonAtomic } from '../../src/evidence/write-json.js';
import { ValidationError } from '../../src/errors.js';
import { readAttempts } from '../../src/core/stored-runs/inspect-runs.js';
import { appFailureOf } from '../../src/reporters/app-failure.js';
import type { RunRecord } from '../../src/evidence/run-record.js';
import { tempDir } from '../helpers/temp.js';

const snapshot = { head: 'b'.repeat(40), contentHash: 'c'.repeat(64), changed: ['src/app.js'], entries: {}, codes: {} };

function attempt(overrides: Record<string, unknown> = {}): AttemptFile {
  return {
    schemaVersion: 1,
    number: 1,
    kind: 'agent',
    status: 'FAIL',
    summary: 'AC-002 failed',
    criteria: [
      { id: 'AC-001', description: 'lists tasks', status: 'PASS', steps: [1], note: null },
      { id: 'AC-002', description: 'adds a task', status: 'FAIL', steps: [2], note: 'product failure at step 2' },
    ],
    findings: [
      {
        step: 2,
        heading: 'add a task',
        kind: 'product_failure',
        reason: 'the list did not grow',
        reasonCode: null,
        resultCode: 740,
        verdict: null,
        sessionId: 's-1',
        evidencePack: null,
      },
    ],
    startedAt: '2026-11-30T04:56:13.000Z',
    durationMs: 50_000,
    agent: {
      ok: true,
      exitCode: 0,
      durationMs: 1200,
      costUsd: 0.04,
      turns: 3,
      summary: null,
      ending: { kind: 'finished', detail: 'done' },
    },
    app: { ok: true, url: 'http://127.0.0.1:4000/', port: 4000, command: 'node app.js', readyMs: 80 },
    verifier: {
      status: 'FAIL',
      summary: 'AC-002 failed',
      exitCode: 1,
      timedOut: false,
      durationMs: 9000,
      details: {
        verifier: 'kane',
        rule: 'product-failure',
        kaneVersion: '0.8.17',
        streamContractVersion: 1,
        sessionId: 's-1',
        shareUrl: null,
        creditsConsumed: 2,
        evidencePack: null,
        skippedLines: 0,
        steps: [{ index: 1, heading: 'list', status: 'passed', verdict: 'passed', durationSeconds: 2 }],
        command: 'kane-cli',
        argv: ['testmd'],
        counts: { events: 12 },
      },
    },
    snapshots: { before: snapshot, after: snapshot },
    terminal: null,
    appFailure: null,
    cost: { agentUsd: 0.04, agentTurns: 3, inputTokens: null, outputTokens: null, kaneCredits: 2 },
    stoppedProcesses: [],
    ...overrides,
  } as AttemptFile;
}

const playwrightDetails = {
  command: ['npx', 'playwright', 'test'],
  browserPath: null,
  config: '/e/verifier/playwright.config.mjs',
  report: '/e/verifier/report.json',
  outputDir: '/e/verifier/test-results',
  browserMarker: 'elenchos-browser-1',
  tests: [{ index: 1, title: 'adds a task', outcome: 'not_run', durationMs: null }],
};

async function written(value: unknown): Promise<string> {
  const file = path.join(tempDir(), 'attempt.json');
  await writeJsonAtomic(file, value);
  return file;
}

describe('attempt.json', () => {
  it('reads each verifier’s details as its own kind, unknown fields kept', async () => {
    const kane = await readAttemptFile(await written(attempt()));
    const details = kane.verifier?.details;
    expect(details?.verifier === 'kane' ? [details.kaneVersion, details.creditsConsumed, details.counts] : null).toEqual([
      '0.8.17',
      2,
      { events: 12 },
    ]);
    const playwright = await readAttemptFile(await written(attempt({ verifier: { ...attempt().verifier, details: playwrightDetails } })));
    const shown = playwright.verifier?.details;
    expect(shown && shown.verifier === undefined ? shown.tests.map((t) => t.outcome) : null).toEqual(['not_run']);
  });

  it('lists every problem of a record that is not an attempt, with its JSON path', async () => {
    const bad = attempt({
      status: 'DONE',
      criteria: [{ id: 'AC-001', description: 'x', status: 'PASSED', steps: [1], note: null }],
      verifier: { ...attempt().verifier, details: { ...playwrightDetails, verifier: 'selenium' } },
    });
    const error = await readAttemptFile(await written(bad)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const details = (error as ValidationError).details.join('\n');
    expect(details).toMatch(/status/);
    expect(details).toMatch(/criteria\[0\]\.status/);
    expect(details).toMatch(/verifier\.details/);
  });

  it('a forged app record does not pass for one: show treats the attempt as missing, not half-read', async () => {
    const run = tempDir();
    const record = { attempts: [{ number: 1 }, { number: 2 }, { number: 3 }] } as unknown as RunRecord;
    await writeJsonAtomic(attemptPaths(attemptDir(run, 1)).attemptJson, attempt({ app: { ok: false, message: 7 } }));
    await writeJsonAtomic(
      attemptPaths(attemptDir(run, 2)).attemptJson,
      attempt({
        app: {
          ok: false,
          url: 'http://127.0.0.1:4000/',
          port: 4000,
          command: 'node app.js',
          reason: 'APP_EXITED',
          message: 'exited with code 1',
          exitCode: 1,
          logTail: 'boom\nbye',
          baseProbe: { ok: true, message: 'ready in 50 ms on the base commit', logTail: '' },
        },
      }),
    );
    const [forged, failed, missing] = await readAttempts(run, record);
    expect(forged).toBeNull();
    expect(missing).toBeNull();
    expect(appFailureOf(failed)).toEqual({
      message: 'exited with code 1',
      logTail: ['boom', 'bye'],
      base: { ok: true, message: 'ready in 50 ms on the base commit', logTail: [] },
    });
  });
});
