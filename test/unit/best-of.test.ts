// The best-of winner rule, the change measure and the shared budget, without running anything.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BudgetTracker } from '../../src/core/run/budget.js';
import { patchSize } from '../../src/core/best-of/change-size.js';
import { chooseWinner, type Contender } from '../../src/core/best-of/choose.js';
import { planCandidates } from '../../src/core/best-of/plan.js';
import { CandidateBudget } from '../../src/core/best-of/shared-budget.js';
import { ConfigSchema } from '../../src/config/config-schema.js';
import { gitSync, tempDir } from '../helpers/temp.js';

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
    const whole = new BudgetTracker({ maxCostUsd: 1.5 }, Date.now());
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
});
