// The best-of winner rule, the change measure and the shared budget, without running anything.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunGuard } from '../../src/core/run/run-guard.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { BudgetTracker } from '../../src/core/run/budget.js';
import { patchSize } from '../../src/core/best-of/change-size.js';
import { chooseWinner, rank, type Contender } from '../../src/core/best-of/choose.js';
import { planCandidates } from '../../src/core/best-of/plan.js';
import { CandidateBudget, WholeRunBudget } from '../../src/core/best-of/shared-budget.js';
import { ConfigSchema } from '../../src/config/config-schema.js';

const c = (name: string, over: Partial<Contender> = {}): Contender => ({
  name,
  state: 'VERIFIED',
  attempts: 1,
  changeSize: 10,
  costUsd: 0,
  kaneCredits: 0,
  finishedAt: 1000,
  ...over,
});

describe('chooseWinner', () => {
  it('only VERIFIED candidates win, whatever else they have', () => {
    expect(chooseWinner([c('a', { state: 'FAILED', changeSize: 1 }), c('b', { attempts: 3, changeSize: 99 })])).toEqual({
      name: 'b',
      reason: 'the only VERIFIED candidate of 2',
    });
    expect(chooseWinner([c('a', { state: 'FAILED' }), c('b', { state: 'ERROR' }), c('s', { state: 'STOPPED' })])).toBeNull();
  });
  it('fewest attempts first, even against a smaller change and a lower cost', () => {
    const w = chooseWinner([c('a', { attempts: 2, changeSize: 1, costUsd: 0 }), c('b', { attempts: 1, changeSize: 50, costUsd: 3 })]);
    expect(w?.name).toBe('b');
    expect(w?.reason).toBe('2 VERIFIED; fewest attempts: 1 attempt(s), the next best (a) 2 attempt(s)');
  });
  it('then the smallest change, then the lowest cost, then the earliest to finish', () => {
    expect(chooseWinner([c('a', { changeSize: 12 }), c('b', { changeSize: 11, costUsd: 9 })])?.name).toBe('b');
    expect(chooseWinner([c('a', { costUsd: 2 }), c('b', { costUsd: 1, finishedAt: 9999 })])?.name).toBe('b');
    const late = chooseWinner([c('a', { finishedAt: 2000 }), c('b', { finishedAt: 1500 })]);
    expect(late?.name).toBe('b');
    expect(late?.reason).toMatch(/attempts tied .*change tied .*cost tied .*earliest to finish/);
  });
  it('a candidate with no stored change ranks after one with a measured change', () => {
    expect(chooseWinner([c('a', { changeSize: null }), c('b', { changeSize: 500 })])?.name).toBe('b');
  });
  it('a complete tie goes to the first in the plan', () => {
    expect(chooseWinner([c('a'), c('b')])).toEqual({
      name: 'a',
      reason: "2 VERIFIED and tied on every criterion; the first in the plan's order",
    });
  });
});

describe('chooseWinner with a cost nobody reported', () => {
  it('an unreported cost is not $0: the cost rule is skipped and the next criterion decides', () => {
    // Before: a Codex candidate (no dollars) counted $0 and beat a Claude one that reported $0.30.
    const w = chooseWinner([c('claude', { costUsd: 0.3, finishedAt: 1000 }), c('codex', { costUsd: null, finishedAt: 2000 })]);
    expect(w?.name).toBe('claude');
    expect(w?.reason).toBe(
      '2 VERIFIED; attempts tied (1 attempt(s)); change tied (10 line(s)/byte(s) changed); cost not compared (codex: not reported); Kane credits tied (0 credit(s)); earliest to finish: 1970-01-01T00:00:01.000Z, the next best (codex) 1970-01-01T00:00:02.000Z',
    );
    expect(chooseWinner([c('codex', { costUsd: null, finishedAt: 1000 }), c('claude', { costUsd: 0.01, finishedAt: 2000 })])?.name).toBe(
      'codex',
    );
  });
  it('both reported: the cost rule applies as before', () => {
    expect(chooseWinner([c('a', { costUsd: 0.5 }), c('b', { costUsd: 0.2, finishedAt: 9999 })])?.reason).toContain(
      'lowest cost: $0.2, the next best (a) $0.5',
    );
  });
  it('one unknown cost among tied candidates skips the rule for that group only, so the order is never circular', () => {
    // a beats b on cost, but c (unknown) tied with both: pair by pair a<b (cost), b<c (time), c<a (time) would be a cycle.
    const three = [
      c('a', { costUsd: 1, finishedAt: 3000 }),
      c('b', { costUsd: 2, finishedAt: 1000 }),
      c('u', { costUsd: null, finishedAt: 2000 }),
    ];
    expect(rank(three).map((x) => x.name)).toEqual(['b', 'u', 'a']);
    expect(rank([...three].reverse()).map((x) => x.name)).toEqual(['b', 'u', 'a']);
    // A candidate with more attempts is in another group: its unknown cost does not stop a and b comparing theirs.
    const apart = [
      c('a', { costUsd: 1, finishedAt: 3000 }),
      c('b', { costUsd: 2, finishedAt: 1000 }),
      c('u', { attempts: 2, costUsd: null }),
    ];
    expect(rank(apart).map((x) => x.name)).toEqual(['a', 'b', 'u']);
  });
});

describe('patchSize', () => {
  it('counts + and - lines inside hunks (not the file headers), and binary files by their literal size', () => {
    const patch = [
      'diff --git a/page.html b/page.html',
      'index 1..2 100644',
      '--- a/page.html',
      '+++ b/page.html',
      '@@ -1,2 +1,3 @@',
      ' same',
      '-old',
      '+new',
      '+more',
      'diff --git a/logo.bin b/logo.bin',
      'index 3..4 100644',
      'GIT binary patch',
      'literal 512',
      'zcmV-abc',
      '',
      'literal 12',
      'zcmV-def',
      '',
    ].join('\n');
    expect(patchSize(patch)).toEqual({ files: 2, added: 2, removed: 1, binaryBytes: 512 });
  });

  it("counts binary files by their size from git's own patch: a changed one's new size (a delta), a deleted one's old size, an added one's size", () => {
    const repo = tempDir('elenchos-binary-patch-');
    gitSync(repo, 'init', '-q');
    const big = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 256));
    writeFileSync(path.join(repo, 'big.bin'), big);
    writeFileSync(path.join(repo, 'gone.bin'), Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]));
    gitSync(repo, 'add', '-A');
    gitSync(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
    big[100] = 255;
    writeFileSync(path.join(repo, 'big.bin'), Buffer.concat([big, Buffer.alloc(300, 3)]));
    rmSync(path.join(repo, 'gone.bin'));
    writeFileSync(path.join(repo, 'new.bin'), Buffer.from([0, 0, 0, 7]));
    gitSync(repo, 'add', '-A');
    const patch = gitSync(repo, 'diff', '--cached', '--binary');
    // git wrote the small edit of big.bin as a delta of a few bytes, and the deletion's forward hunk as "literal 0".
    expect(patch).toMatch(/^delta \d{1,3}$/m);
    expect(patch).toContain('deleted file mode');
    expect(patchSize(patch)).toEqual({ files: 3, added: 0, removed: 0, binaryBytes: 5300 + 12 + 4 });
  });

  it('a delta whose data cannot be read counts its own size rather than nothing', () => {
    const patch = [
      'diff --git a/x.bin b/x.bin',
      'index 1..2 100644',
      'GIT binary patch',
      'delta 40',
      'not base85 at all',
      '',
      'delta 9',
      'x',
      '',
    ].join('\n');
    expect(patchSize(patch).binaryBytes).toBe(40);
  });
});

describe('planCandidates', () => {
  const config = ConfigSchema.parse({ agent: { command: 'x' }, agents: { a: { command: 'a' }, b: { type: 'claude' } } });
  it('one per named agent, --best-of times each, numbered only when repeated', () => {
    expect(planCandidates(config, 'cfg', { agents: ['a', 'b'] }).map((p) => [p.name, p.agentName, p.index])).toEqual([
      ['a', 'a', 1],
      ['b', 'b', 2],
    ]);
    expect(planCandidates(config, 'cfg', { bestOf: 2, agents: ['default', 'b'] }).map((p) => p.name)).toEqual([
      'default-1',
      'default-2',
      'b-1',
      'b-2',
    ]);
    expect(planCandidates(config, 'cfg', { bestOf: 3 }).map((p) => p.agent.command)).toEqual(['x', 'x', 'x']);
  });
  it('refuses an unknown name, a name twice, and a single candidate', () => {
    expect(() => planCandidates(config, 'cfg', { agents: ['a', 'zz'] })).toThrow('add agents.zz, or pick one of: default, a, b');
    expect(() => planCandidates(config, 'cfg', { agents: ['a', 'a'] })).toThrow('names "a" twice');
    expect(() => planCandidates(config, 'cfg', { agents: ['a'] })).toThrow('one candidate is a plain run');
  });
  it('the config refuses an agent named "default" or a name that is no slug', () => {
    expect(ConfigSchema.safeParse({ agents: { default: {} } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ agents: { 'a/../b': {} } }).success).toBe(false);
  });
});

describe('CandidateBudget', () => {
  it("keeps the candidate's own totals, adds to the whole run's, and asks the whole run's caps", () => {
    const whole = new WholeRunBudget({ maxCostUsd: 1.5 }, Date.now());
    const a = new CandidateBudget(whole, Date.now());
    const b = new CandidateBudget(whole, Date.now());
    a.recordAgent({ costUsd: 0.4, turns: 1, durationMs: 10 });
    expect(b.gate('agent')).toBeNull();
    b.recordAgent({ costUsd: 0.6, turns: 1, durationMs: 10 });
    expect(a.totals().agentUsd).toBe(0.4);
    expect(b.totals().agentUsd).toBe(0.6);
    expect(whole.totals().agentUsd).toBe(1);
    // Each alone is far under the cap; together the next step would pass it: every candidate's is refused.
    expect(a.gate('agent')).toContain('--max-cost-usd 1.5 ($1 spent');
    expect(b.gate('agent')).toContain('--max-cost-usd 1.5');
  });

  it("counts the other candidates' steps under way at what the last one cost, so K candidates cannot each pass the cap by a step", () => {
    const whole = new WholeRunBudget({ maxCostUsd: 1 }, Date.now());
    const a = new CandidateBudget(whole, Date.now());
    const b = new CandidateBudget(whole, Date.now());
    const k = new CandidateBudget(whole, Date.now());
    a.recordAgent({ costUsd: 0.3, turns: 1, durationMs: 10 });
    // $0.3 spent, $0.3 expected of the next: a may start one, then b one (0.3 + 0.3 under way + 0.3 ≤ 1)…
    expect(a.gate('agent')).toBeNull();
    expect(b.gate('agent')).toBeNull();
    // …but a third would make 0.3 + 0.6 under way + 0.3 > 1: refused, naming what is under way.
    expect(k.gate('agent')).toBe(
      'the next agent step would pass --max-cost-usd 1 ($0.3 spent, $0.6 expected of steps under way, the last one cost $0.3)',
    );
    // Once a's step is recorded its reservation goes: k is judged on what was spent and b's step alone.
    a.recordAgent({ costUsd: 0.3, turns: 1, durationMs: 10 });
    expect(k.gate('agent')).toContain('($0.6 spent, $0.3 expected of steps under way');
    b.ended();
    expect(k.gate('agent')).toBeNull();
  });

  it('a whole run whose agents reported no dollars has an unknown cost (null), not $0', () => {
    const whole = new WholeRunBudget({}, Date.now());
    new CandidateBudget(whole, Date.now()).recordAgent({ costUsd: null, turns: 3, durationMs: 10 });
    expect(whole.totals().agentUsd).toBeNull();
    expect(new BudgetTracker({}, 0).totals().agentUsd).toBe(0); // no agent ran (a verify): nothing spent
  });
});

describe('a stopped candidate (RunGuard)', () => {
  const guard = (stopReason: string | null) => {
    const user = new AbortController();
    const g = new RunGuard(user.signal, '/r', '/r/children.log', () => stopReason);
    user.abort();
    return g;
  };
  const failed = { state: 'FAILED', reason: 'PRODUCT_FAILURE', message: 'AC-002 failed' } as const;
  it('is sealed ERROR STOPPED with the reason it was stopped, not INTERRUPTED', () => {
    expect(guard('stopped: fast was VERIFIED first (--stop-at-first)').sealedOutcome(failed)).toEqual({
      state: 'ERROR',
      reason: 'STOPPED',
      message: 'stopped: fast was VERIFIED first (--stop-at-first)',
    });
    const interrupted = { state: 'ERROR', reason: 'INTERRUPTED', message: 'interrupted (Ctrl-C)' } as const;
    expect(guard('stopped: x').sealedOutcome(interrupted)).toMatchObject({ reason: 'STOPPED' });
  });
  it('keeps a VERIFIED verdict it reached before the stop', () => {
    const verified = { state: 'VERIFIED', reason: null, message: null } as const;
    expect(guard('stopped: x').sealedOutcome(verified)).toEqual(verified);
  });
  it('a Ctrl-C (no stop reason) is still INTERRUPTED, even after a VERIFIED verdict', () => {
    expect(guard(null).sealedOutcome({ state: 'VERIFIED', reason: null, message: null })).toMatchObject({
      state: 'ERROR',
      reason: 'INTERRUPTED',
    });
  });
});
