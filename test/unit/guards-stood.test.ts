// What stood behind a verdict: the plan (which guards a verdict needs), each guard as a phase records it, the
// run's summary, the rule that a VERIFIED whose required guard did not stand is ERROR GUARD_MISSING, and the
// places the record reaches (JUnit properties, the attestation's predicate, attest verify --require).
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/config-schema.js';
import { buildStatement } from '../../src/attest/statement.js';
import { readVerdict } from '../../src/attest/verdict.js';
import { holdToPlan, planGuards, standing, summarizeGuards, windowGuard, withScan } from '../../src/core/run/guards-stood.js';
import type { AttemptGuards } from '../../src/evidence/guards-record.js';
import { RunRecordSchema } from '../../src/evidence/run-record.js';
import type { TableFacts } from '../../src/process/process-table.js';
import { renderJunit } from '../../src/reporters/junit.js';
import { GUARD_NAMES } from '../../src/states.js';

const config = (extra: Record<string, unknown> = {}) =>
  ConfigSchema.parse({ app: { command: 'node app.js' }, agent: { sandbox: 'none' }, ...extra });
const proc: TableFacts = { source: 'proc', why: '/proc lists this process', blind: [] };
const gone: TableFacts = { source: 'unavailable', why: '/proc does not list this process (ENOENT); no ps', blind: [] };

/** The guards of an attempt that went through every phase, the process scan's looks as given. */
function fullAttempt(plan: ReturnType<typeof planGuards>, looks = [proc, proc]): AttemptGuards {
  let processScan = withScan(undefined, 'agent', looks[0]!);
  processScan = withScan(processScan, 'verification', looks[1]!);
  return {
    sandbox: plan.sandbox,
    processScan,
    windowWatch: windowGuard({ ok: true, written: [], directories: 3 }),
    objectStore: { stood: true, how: 'audit', why: 'audited' },
    inputsPinned: { stood: true, how: 'locked by sha256 and checked', why: null, files: 2, roles: ['task', 'test'] },
  };
}

describe('the plan', () => {
  it('needs every guard that always runs; the sandbox only when asked; guards.allow lets one off; --require adds', () => {
    expect(planGuards(config(), 'run').required).toEqual(['processScan', 'windowWatch', 'objectStore', 'inputsPinned']);
    expect(planGuards(config({ guards: { allow: ['processScan'] } }), 'run')).toMatchObject({
      required: ['windowWatch', 'objectStore', 'inputsPinned'],
      allowed: ['processScan'],
    });
    expect(planGuards(config({ guards: { require: ['sandbox'] } }), 'verify').required).toContain('sandbox');
    // --require wins over the config's allow: the stricter word holds.
    expect(planGuards(config({ guards: { allow: ['processScan'] } }), 'run', ['processScan'])).toMatchObject({ allowed: [] });
    expect(planGuards(config({ guards: { allow: ['processScan'] } }), 'run', ['processScan']).required).toContain('processScan');
  });

  it('says how each child runs: the agent only in a run, setup only with a command; sandbox stands only if all are in bwrap', () => {
    const none = planGuards(config(), 'verify').sandbox;
    expect(none).toMatchObject({ stood: false, how: 'none', why: 'agent.sandbox is "none"', agent: null, setup: null });
    expect(none.app).toEqual({ mode: 'none', why: 'agent.sandbox is "none"' });
    const boxed = planGuards(config({ agent: { sandbox: 'bwrap' }, setup: { command: 'npm ci' } }), 'run').sandbox;
    expect(boxed).toMatchObject({ stood: true, how: 'bwrap', why: null });
    expect([boxed.agent?.mode, boxed.app?.mode, boxed.setup?.mode]).toEqual(['bwrap', 'bwrap', 'bwrap']);
    // The sandbox as resolved before the run (a probe that found it does not hold) is the word, not the config's.
    const resolved = { mode: 'none' as const, why: 'agent.sandbox is "auto" and bubblewrap is not installed' };
    expect(planGuards(config({ agent: { sandbox: 'bwrap' } }), 'run', [], resolved).sandbox).toMatchObject({
      stood: false,
      why: resolved.why,
      agent: resolved,
    });
  });

  it('refuses a guard both required and allowed, and a name that is no guard', () => {
    expect(() => config({ guards: { require: ['processScan'], allow: ['processScan'] } })).toThrow(/both required and allowed/);
    expect(() => config({ guards: { allow: ['sandboxes'] } })).toThrow();
  });
});

describe('the record and the rule', () => {
  it('a process scan stands only if every look saw everything, and says which look did not', () => {
    expect(withScan(withScan(undefined, 'agent', proc), 'verification', proc)).toMatchObject({ stood: true, how: 'proc', why: null });
    const blindAfter = withScan(withScan(undefined, 'agent', proc), 'verification', gone);
    expect(blindAfter).toMatchObject({ stood: false, how: 'proc, unavailable' });
    expect(blindAfter.why).toBe('after verification: /proc does not list this process (ENOENT); no ps');
    const partial = withScan(undefined, 'agent', { source: 'ps', why: 'no lsof', blind: ['directories'] });
    expect(partial).toMatchObject({ stood: false, why: "after the agent's turn: no lsof" });
  });

  it('VERIFIED only when every required guard stood; otherwise ERROR GUARD_MISSING naming what was missing', () => {
    const plan = planGuards(config(), 'run');
    const verified = { state: 'VERIFIED' as const, reason: null, message: null };
    expect(holdToPlan(verified, plan, { guards: fullAttempt(plan) })).toBe(verified);
    expect(holdToPlan(verified, plan, { guards: fullAttempt(plan, [proc, gone]) })).toEqual({
      state: 'ERROR',
      reason: 'GUARD_MISSING',
      message: 'required guard(s) did not stand: processScan (after verification: /proc does not list this process (ENOENT); no ps)',
    });
    // A window watch never reached (an attempt that ended early) did not stand either.
    const { windowWatch: _w, ...noWindow } = fullAttempt(plan);
    expect(holdToPlan(verified, plan, { guards: noWindow }).message).toBe('required guard(s) did not stand: windowWatch (it never ran)');
    // Allowed by name: the record still says it did not stand.
    const allowing = planGuards(config({ guards: { allow: ['processScan'] } }), 'run');
    expect(holdToPlan(verified, allowing, { guards: fullAttempt(allowing, [gone, gone]) })).toBe(verified);
    // The sandbox, asked for: none is none.
    const sandboxed = planGuards(config(), 'verify', ['sandbox']);
    expect(holdToPlan(verified, sandboxed, { guards: fullAttempt(sandboxed) }).message).toBe(
      'required guard(s) did not stand: sandbox (agent.sandbox is "none")',
    );
    // Any other end stands as it is.
    const failed = { state: 'FAILED' as const, reason: 'PRODUCT_FAILURE' as const, message: 'x' };
    expect(holdToPlan(failed, sandboxed, { guards: {} })).toBe(failed);
  });

  it("summarizes the last attempt's guards into run.json, valid against its schema", () => {
    const plan = planGuards(config(), 'run');
    const summary = summarizeGuards(plan, { number: 2, guards: fullAttempt(plan) }, {});
    expect(summary).toMatchObject({
      attempt: 2,
      stood: ['processScan', 'windowWatch', 'objectStore', 'inputsPinned'],
      missing: ['sandbox'],
      allowed: [],
    });
    expect(standing({}).missing).toEqual([...GUARD_NAMES]);
    expect(RunRecordSchema.shape.guards.safeParse(summary).success).toBe(true);
  });
});

describe('where the record goes', () => {
  const guardsOf = (stood: string[]) => ({
    attempt: 1,
    stood,
    missing: GUARD_NAMES.filter((g) => !stood.includes(g)),
    required: ['processScan'],
    allowed: [],
    detail: { sandbox: { stood: false, how: 'none', why: 'agent.sandbox is "none"', agent: null, app: null, setup: null } },
  });

  it('JUnit: suite properties naming what stood and how each guard fared', () => {
    const record = RunRecordSchema.parse(runRecord('tasks/a.json', guardsOf(['processScan', 'windowWatch'])));
    const xml = renderJunit([{ file: 'tasks/a.json', record, runDir: null, refused: null, criteria: [] }]);
    expect(xml).toContain('<property name="elenchos.guards.stood" value="processScan,windowWatch"/>');
    expect(xml).toContain('<property name="elenchos.guards.missing" value="sandbox,objectStore,inputsPinned"/>');
    expect(xml).toContain('<property name="elenchos.guard.sandbox" value="not standing: none; agent.sandbox is &quot;none&quot;"/>');
    expect(xml).toContain('<property name="elenchos.guard.objectStore" value="not reached"/>');
  });

  it("the attestation's predicate: what stood behind every task, and each task's own; none for a record without guards", () => {
    const document = JSON.stringify({
      runs: [
        runRecord('tasks/a.json', guardsOf(['sandbox', 'processScan', 'windowWatch'])),
        runRecord('tasks/b.json', guardsOf(['processScan', 'windowWatch', 'objectStore'])),
      ],
    });
    const facts = readVerdict(document);
    const statement = buildStatement({
      commit: 'c'.repeat(40),
      verdictSha256: null,
      result: 'PASSED',
      configuration: [],
      passedTests: facts.passedTests,
      failedTests: facts.failedTests,
      url: null,
      guards: facts.guards,
    });
    expect(statement.predicate.guards).toEqual({
      stood: ['processScan', 'windowWatch'],
      missing: ['sandbox', 'objectStore', 'inputsPinned'],
      tasks: {
        'tasks/a.json': { stood: ['sandbox', 'processScan', 'windowWatch'], missing: ['objectStore', 'inputsPinned'] },
        'tasks/b.json': { stood: ['processScan', 'windowWatch', 'objectStore'], missing: ['sandbox', 'inputsPinned'] },
      },
    });
    const { guards: _g, ...older } = runRecord('tasks/c.json', guardsOf([]));
    expect(readVerdict(JSON.stringify({ runs: [older] })).guards['tasks/c.json']).toEqual({ stood: [], missing: [...GUARD_NAMES] });
  });
});

function runRecord(file: string, guards: unknown): Record<string, unknown> {
  return {
    schemaVersion: 1,
    runId: `r-${file}`,
    mode: 'verify',
    task: { id: 't', file, title: 't' },
    state: 'VERIFIED',
    reason: null,
    message: null,
    tools: { elenchos: '0', node: 'v20', git: '2', verifier: null, agent: null },
    contract: { files: [] },
    configFingerprint: 'x',
    startedAt: '2026-12-07T00:00:00.000Z',
    finishedAt: '2026-12-07T00:00:01.000Z',
    durationMs: 1000,
    pid: 1,
    host: 'h',
    workspace: { path: '.', base: 'c'.repeat(40), kept: false },
    attempts: [],
    guards,
  };
}
