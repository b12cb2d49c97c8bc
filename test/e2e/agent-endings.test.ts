// Why the agent stopped, end to end: a limit leaves work the verifier judges, a transient API error is
// tried once more, a dead turn is AGENT_FAILED, and a dollar cap an agent cannot report is refused.
// @module-tag slow
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const attempt = (dir: string, n: number) =>
  JSON.parse(readFileSync(path.join(dir, 'attempts', String(n).padStart(2, '0'), 'attempt.json'), 'utf8'));
const claude = (env: Record<string, string>) => ({
  agent: { type: 'claude', command: path.join(FIXTURES, 'bin/claude'), timeoutSeconds: 30, env },
});
const codex = (env: Record<string, string> = {}) => ({
  agent: { type: 'codex', command: path.join(FIXTURES, 'bin/codex'), timeoutSeconds: 30, env },
});

describe.concurrent('agent endings', { timeout: 180_000 }, () => {
  it('a turn that hit its limit is still verified: its work passes, and show says why it stopped', async () => {
    const project = makeProject({ config: claude({ FAKE_CLAUDE_MODE: 'error-result' }) });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(record.state).toBe('VERIFIED');
    expect(attempt(dir, 1).agent).toMatchObject({ ok: true, exitCode: 1, ending: { kind: 'limit-reached' } });
    const shown = (await runMain(['show', 'latest'], project.root)).stdout;
    expect(shown).toContain('agent: limit-reached (error_max_turns, the turn limit (--max-turns) after 4 turn(s)); $0.0421');
  });

  it('a transient API error is tried once more in the same attempt, both dispatches counted', async () => {
    const state = path.join(tempDir('elenchos-fake-state-'), 'calls');
    const project = makeProject({ config: claude({ FAKE_CLAUDE_MODE: 'api-error-once', FAKE_AGENT_STATE: state }) });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(0);
    expect(readFileSync(state, 'utf8')).toBe('2');
    const { dir, record } = onlyRun(project.root);
    expect(record.attempts).toHaveLength(1);
    expect(attempt(dir, 1).agent).toMatchObject({
      ok: true,
      costUsd: 0.0842,
      turns: 8,
      ending: { kind: 'finished' },
      retriedAfter: { kind: 'transient-api-error', detail: expect.stringContaining('api_error_status 529') },
    });
    expect(attempt(dir, 1).cost).toMatchObject({ agentUsd: 0.0842, agentTurns: 8 });
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain(
      'after one retry of transient-api-error (api_error_status 529',
    );
  });

  it('a transient API error is retried only once: a second one leaves the work to the verifier', async () => {
    const project = makeProject({ config: claude({ FAKE_CLAUDE_MODE: 'api-error', FAKE_CLAUDE_NO_WORK: '1' }), scenario: 'check-page' });
    const result = await runMain(['run', 'tasks/add-task.json', '--max-repairs', '0'], project.root, project.env);
    expect(result.code).toBe(1);
    const { dir } = onlyRun(project.root);
    expect(attempt(dir, 1).agent).toMatchObject({
      ending: { kind: 'transient-api-error' },
      retriedAfter: { kind: 'transient-api-error' },
      turns: 8,
    });
    expect(readFileSync(path.join(dir, 'attempts/01/agent.log'), 'utf8').match(/"type":"result"/g)).toHaveLength(2);
  });

  it('no retry when the next dispatch would pass --max-cost-usd', async () => {
    const project = makeProject({ config: claude({ FAKE_CLAUDE_MODE: 'api-error', FAKE_CLAUDE_COST_USD: '0.3' }) });
    const result = await runMain(['run', 'tasks/add-task.json', '--max-cost-usd', '0.5', '--max-repairs', '0'], project.root, project.env);
    expect(result.stdout).toContain('not tried again: the next agent step would pass --max-cost-usd 0.5');
    const { dir } = onlyRun(project.root);
    expect(attempt(dir, 1).agent).toMatchObject({ costUsd: 0.3, ending: { kind: 'transient-api-error' } });
    expect(attempt(dir, 1).agent.retriedAfter).toBeUndefined();
    expect(readFileSync(path.join(dir, 'attempts/01/agent.log'), 'utf8').match(/"type":"result"/g)).toHaveLength(1);
  });

  it('a dead turn (stop_reason tool_use, nothing said) is AGENT_FAILED, not a finished one', async () => {
    const project = makeProject({ config: claude({ FAKE_CLAUDE_MODE: 'dead-tool-use' }) });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(2);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'AGENT_FAILED' });
    expect(attempt(dir, 1)).toMatchObject({ verifier: null, agent: { ending: { kind: 'crashed' } } });
  });

  it('Codex recovering from a dropped stream is verified, and show says its cost is not reported', async () => {
    const project = makeProject({ config: codex({ FAKE_CODEX_MODE: 'reconnect' }) });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(0);
    const shown = (await runMain(['show', 'latest'], project.root)).stdout;
    expect(shown).toContain('spent: agent cost not reported (1 turn(s), 1200 input / 300 output tokens)');
    expect(shown).toContain('agent: finished (1 turn(s), 2 stream error(s) Codex recovered from); cost not reported');
    const report = await runMain(['report', 'latest'], project.root);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    expect(html).toContain('agent cost not reported (1 turn');
    expect(html).toContain('<p>agent: finished (1 turn(s), 2 stream error(s) Codex recovered from); cost not reported</p>');
  });

  it('--max-cost-usd (or budget.maxCostUsd) with an agent that reports no dollars refuses to start', async () => {
    const project = makeProject({ config: codex() });
    const result = await runMain(['run', 'tasks/add-task.json', '--max-cost-usd', '1'], project.root, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--max-cost-usd 1 can never fire: agent.type "codex" reports no dollar cost');
    expect(
      existsSync(path.join(project.root, '.elenchos', 'runs')) && readdirSync(path.join(project.root, '.elenchos', 'runs')).length,
    ).toBeFalsy();
    const fromConfig = makeProject({ config: { ...codex(), budget: { maxCostUsd: 2 } } });
    expect(await runMain(['run', 'tasks/add-task.json'], fromConfig.root, fromConfig.env)).toMatchObject({ code: 3 });
    const checked = await runMain(['check'], fromConfig.root, fromConfig.env);
    expect(checked.code).toBe(3);
    expect(checked.stdout + checked.stderr).toContain('reports no dollar cost');
  });

  it('a Codex turn that failed on a 429 is tried once more in the same attempt, then verified', async () => {
    const state = path.join(tempDir('elenchos-fake-state-'), 'calls');
    const project = makeProject({ config: codex({ FAKE_CODEX_MODE: 'rate-limited-once', FAKE_AGENT_STATE: state }) });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(readFileSync(state, 'utf8')).toBe('2');
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'VERIFIED' });
    expect(record.attempts).toHaveLength(1);
    expect(attempt(dir, 1).agent).toMatchObject({
      ok: true,
      ending: { kind: 'finished' },
      retriedAfter: { kind: 'transient-api-error', detail: expect.stringContaining('429 Too Many Requests') },
    });
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain(
      'after one retry of transient-api-error (turn.failed: exceeded retry limit, last status: 429 Too Many Requests',
    );
  });

  it('an agent killed at agent.timeoutSeconds: AGENT_TIMEOUT, and show says its turn timed out', async () => {
    const project = makeProject({
      config: { agent: { ...claude({ FAKE_AGENT_HANG: '1' }).agent, timeoutSeconds: 1 } },
    });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(2);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'AGENT_TIMEOUT' });
    expect(attempt(dir, 1).agent).toMatchObject({ reason: 'AGENT_TIMEOUT', ending: { kind: 'timed-out' } });
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain(
      'agent: timed-out (killed after agent.timeoutSeconds (1s)); cost not reported',
    );
  });

  // Named agents: the cap reaches over every agent a run would use.
  it('--max-cost-usd over named agents none of which reports dollars refuses to start, in one line', async () => {
    const project = makeProject({ config: { ...codex(), agents: { cx: codex().agent, gem: { ...codex().agent, type: 'gemini' } } } });
    const result = await runMain(['run', 'tasks/add-task.json', '--agents', 'cx,gem', '--max-cost-usd', '1'], project.root, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      '--max-cost-usd 1 can never fire: no agent of this run reports a dollar cost (cx (agent.type "codex"), gem (agent.type "gemini"))',
    );
    expect(
      existsSync(path.join(project.root, '.elenchos', 'runs')) && readdirSync(path.join(project.root, '.elenchos', 'runs')).length,
    ).toBeFalsy();
    const again = await runMain(
      ['run', 'tasks/add-task.json', '--agents', 'cx', '--best-of', '2', '--max-cost-usd', '1'],
      project.root,
      project.env,
    );
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('agent.type "codex" reports no dollar cost');
  });

  it('--max-cost-usd over named agents some of which report dollars runs, its header naming the ones it cannot count', async () => {
    const project = makeProject({ config: { ...claude({}), agents: { cx: codex().agent } } });
    expect((await runMain(['check'], project.root, project.env)).code).toBe(0);
    const result = await runMain(
      ['run', 'tasks/add-task.json', '--agents', 'default,cx', '--max-cost-usd', '5'],
      project.root,
      project.env,
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const note =
      'elenchos: --max-cost-usd 5 counts only the dollars of default: cx (agent.type "codex") reports no dollar cost, and its spend is not counted';
    expect(lines).toContain(note);
    // The header: before any candidate starts.
    expect(lines.indexOf(note)).toBeLessThan(lines.findIndex((l) => l.includes('candidate default') || l.includes('candidate cx')));
    expect(onlyRun(project.root).record).toMatchObject({ state: 'VERIFIED' });
  });
});
