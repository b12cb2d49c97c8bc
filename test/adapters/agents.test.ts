// The agent adapters against fakes faithful to Claude Code's stream-json and Codex's exec --json output.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reportsDollars } from '../../src/agents/cost-cap.js';
import { agentAdapter } from '../../src/agents/registry.js';
import { worthRetrying } from '../../src/agents/retry.js';
import type { AgentContext } from '../../src/agents/types.js';
import { FAKE_AGENT } from '../helpers/project.js';
import { agentContext } from '../helpers/agent-context.js';

// What Elenchos runs in: credentials of every kind, which each adapter must filter.
const BASE_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/home/dev',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  OPENAI_API_KEY: 'sk-openai-test',
  LT_ACCESS_KEY: 'kane-secret',
  LT_USERNAME: 'kane-user',
  UNRELATED: 'x',
  GITHUB_TOKEN: 'ghp_caller_token_value',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value-1234',
  ANTHROPIC_BASE_URL: 'http://proxy',
};

function context(type: AgentContext['config']['type'], env: Record<string, string>, extra: Partial<AgentContext['config']> = {}) {
  return agentContext(type, { env, extra, baseEnv: { ...BASE_ENV }, attempt: 2 });
}

describe.concurrent('claude adapter', () => {
  it('runs claude -p with stream-json, the prompt on stdin, and reads cost and turns from the result event', async () => {
    const { ctx, seen } = context('claude', {}, { passEnv: ['ANTHROPIC_API_KEY'] });
    const outcome = await agentAdapter('claude').dispatch(ctx);
    expect(outcome).toMatchObject({ ok: true, costUsd: 0.0421, turns: 4, summary: 'Implemented the form and the list.' });
    const s = seen();
    expect(s.argv).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    expect(s.prompt).toBe('Do the task.\n');
    expect(s.cwd).toBe(ctx.cwd);
    expect(s.env).toMatchObject({
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ELENCHOS_ATTEMPT: '2',
      ELENCHOS_PROMPT_FILE: ctx.promptFile,
      HOME: '/home/dev',
    });
    for (const key of ['LT_ACCESS_KEY', 'LT_USERNAME', 'OPENAI_API_KEY', 'UNRELATED', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY'])
      expect(s.env[key], key).toBeUndefined();
    expect(readFileSync(ctx.logFile, 'utf8')).toContain('"type":"result"');
  });

  it('gets no credential the config does not name, even the API key of its own adapter', async () => {
    const { ctx, seen } = context('claude', {});
    await agentAdapter('claude').dispatch(ctx);
    const s = seen();
    expect(s.env.ANTHROPIC_BASE_URL).toBe('http://proxy'); // the adapter's prefix still passes what is not a credential
    for (const key of ['ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'LT_ACCESS_KEY'])
      expect(s.env[key], key).toBeUndefined();
  });

  it('never passes the verifier credentials, even when named', async () => {
    const { ctx, seen } = context('claude', {}, { passEnv: ['LT_ACCESS_KEY', 'GITHUB_TOKEN'] });
    await agentAdapter('claude').dispatch(ctx);
    expect(seen().env.LT_ACCESS_KEY).toBeUndefined();
    expect(seen().env.GITHUB_TOKEN).toBe('ghp_caller_token_value');
  });

  it('error_max_turns (is_error, exit 1) is limit-reached and left for the verifier, with the cost counted', async () => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'error-result' }).ctx);
    expect(outcome).toMatchObject({
      ok: true,
      exitCode: 1,
      costUsd: 0.0421,
      turns: 4,
      ending: { kind: 'limit-reached', detail: 'error_max_turns, the turn limit (--max-turns) after 4 turn(s)' },
    });
  });

  // Each shape the fake can send, read as the Agent SDK defines it (test/fixtures/bin/claude cites the sources).
  it.each([
    ['max-turns-exit-0', true, 'limit-reached'],
    ['max-budget', true, 'limit-reached'],
    ['prompt-too-long', true, 'limit-reached'],
    ['api-error', true, 'transient-api-error'],
    ['terminal-api-error', true, 'transient-api-error'],
    ['hook-stopped', true, 'refused'],
    ['refusal', true, 'refused'],
    ['api-error-400', false, 'crashed'],
    ['dead-tool-use', false, 'crashed'],
    ['during-execution', false, 'crashed'],
    ['crash', false, 'crashed'],
  ])('%s: ok %s, ending %s', async (mode, ok, kind) => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: mode }).ctx);
    expect(outcome).toMatchObject({ ok, ending: { kind } });
    if (!outcome.ok) expect(outcome.reason).toBe('AGENT_FAILED');
  });

  it('error_max_budget_usd with is_error false is no longer taken for a finished turn', async () => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'max-budget' }).ctx);
    expect(outcome.ending).toEqual({
      kind: 'limit-reached',
      detail: 'error_max_budget_usd, its own budget (--max-budget-usd) after 4 turn(s)',
    });
  });

  it('a negative cost is no report: it cannot lower the run total under --max-cost-usd', async () => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_COST_USD: '-5' }).ctx);
    expect(outcome).toMatchObject({ ok: true, costUsd: null, turns: 4 });
  });

  it('a dead turn is AGENT_FAILED naming why', async () => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'dead-tool-use' }).ctx);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      costUsd: 0.0421,
      message: "Claude Code's turn crashed (stop_reason tool_use with an empty result)",
    });
  });

  it('no result event is AGENT_FAILED', async () => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'no-result' }).ctx);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      message: 'Claude Code ended without a result event (is the command really `claude`?)',
      ending: { kind: 'crashed', detail: 'no result event' },
    });
  });

  it('an interrupt stays INTERRUPTED, with the ending interrupted rather than one read from the output', async () => {
    const { ctx } = context('claude', {});
    const controller = new AbortController();
    controller.abort();
    const outcome = await agentAdapter('claude').dispatch({ ...ctx, signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, reason: 'INTERRUPTED', ending: { kind: 'interrupted', detail: 'stopped by an interrupt' } });
  });

  // The real `claude -p` exits 1 after a result with is_error (test/fixtures/bin/claude cites the reports):
  // the non-zero exit is read through the result, not taken for a crash.
  it('an API error result that exits 1 is read as its result says: 529 is transient and worth one more dispatch, 400 is a crash', async () => {
    const overloaded = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'api-error' }).ctx);
    expect(overloaded).toMatchObject({
      ok: true,
      exitCode: 1,
      costUsd: 0.0421,
      ending: { kind: 'transient-api-error', detail: expect.stringContaining('api_error_status 529') },
    });
    expect(worthRetrying(overloaded)).toBe(true);
    const noStatus = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'terminal-api-error' }).ctx);
    expect(noStatus).toMatchObject({
      ok: true,
      exitCode: 1,
      ending: { kind: 'transient-api-error', detail: expect.stringContaining('terminal_reason api_error') },
    });
    const bad = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'api-error-400' }).ctx);
    expect(bad).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      exitCode: 1,
      message: "Claude Code's turn crashed (api_error_status 400: API Error: 400 invalid_request_error)",
      ending: { kind: 'crashed' },
    });
    expect(worthRetrying(bad)).toBe(false);
    const long = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'prompt-too-long' }).ctx);
    expect(long).toMatchObject({ ok: true, exitCode: 1, ending: { kind: 'limit-reached' } });
  });

  it('an API error result with exit 0 (some builds of Claude Code end so) ends the same', async () => {
    const outcome = await agentAdapter('claude').dispatch(context('claude', { FAKE_CLAUDE_MODE: 'api-error-exit-0' }).ctx);
    expect(outcome).toMatchObject({ ok: true, exitCode: 0, ending: { kind: 'transient-api-error' } });
  });
});

describe.concurrent('codex adapter', () => {
  it('runs codex exec --json - with the prompt on stdin and counts turns', async () => {
    const { ctx, seen } = context('codex', {}, { args: ['--full-auto'], passEnv: ['OPENAI_API_KEY'] });
    const outcome = await agentAdapter('codex').dispatch(ctx);
    expect(outcome).toMatchObject({ ok: true, turns: 1, summary: 'Added the form and the list.' });
    const s = seen();
    expect(s.argv).toEqual(['exec', '--json', '--full-auto', '-']);
    expect(s.prompt).toBe('Do the task.\n');
    expect(s.env.OPENAI_API_KEY).toBe('sk-openai-test');
    for (const key of ['LT_ACCESS_KEY', 'ANTHROPIC_API_KEY', 'UNRELATED']) expect(s.env[key], key).toBeUndefined();
  });

  it("a failed turn is AGENT_FAILED with Codex's message", async () => {
    const outcome = await agentAdapter('codex').dispatch(context('codex', { FAKE_CODEX_MODE: 'turn-failed' }).ctx);
    expect(outcome).toMatchObject({ ok: false, reason: 'AGENT_FAILED', exitCode: 1, ending: { kind: 'crashed' } });
    expect((outcome as { message: string }).message).toBe(
      'Codex reported a failure: unexpected status 401 Unauthorized: Missing bearer or basic authentication in header',
    );
    expect(worthRetrying(outcome)).toBe(false);
  });

  // codex-rs/core/src/error.rs words: a 429 or a 5xx after Codex's own retries, or a stream that broke off, is
  // a transient API error as Claude Code's 529 is (the shared rule): left for the verifier, dispatched once more.
  it.each([
    ['rate-limited', 'turn.failed: exceeded retry limit, last status: 429 Too Many Requests'],
    ['overloaded', "turn.failed: We're currently experiencing high demand"],
    ['stream-dropped', 'turn.failed: stream disconnected before completion'],
  ])('%s: a transient API error, worth one more dispatch', async (mode, detail) => {
    const outcome = await agentAdapter('codex').dispatch(context('codex', { FAKE_CODEX_MODE: mode }).ctx);
    expect(outcome).toMatchObject({ ok: true, exitCode: 1, costUsd: null, turns: 0, ending: { kind: 'transient-api-error' } });
    expect(outcome.ending!.detail).toContain(detail);
    expect(worthRetrying(outcome)).toBe(true);
  });

  it('out of room in the context window is limit-reached: what it did is verified, not dispatched again', async () => {
    const outcome = await agentAdapter('codex').dispatch(context('codex', { FAKE_CODEX_MODE: 'context-window' }).ctx);
    expect(outcome).toMatchObject({
      ok: true,
      exitCode: 1,
      ending: { kind: 'limit-reached', detail: expect.stringContaining('context window') },
    });
    expect(worthRetrying(outcome)).toBe(false);
  });

  it('"Reconnecting... 2/5" errors are Codex recovering: the turn that then completes is finished', async () => {
    const outcome = await agentAdapter('codex').dispatch(context('codex', { FAKE_CODEX_MODE: 'reconnect' }).ctx);
    expect(outcome).toMatchObject({
      ok: true,
      turns: 1,
      summary: 'Added the form and the list.',
      ending: { kind: 'finished', detail: '1 turn(s), 2 stream error(s) Codex recovered from' },
    });
  });

  it('a non-zero exit without turn.failed is still AGENT_FAILED (crashed)', async () => {
    const outcome = await agentAdapter('codex').dispatch(context('codex', { FAKE_CODEX_MODE: 'crash' }).ctx);
    expect(outcome).toMatchObject({ ok: false, reason: 'AGENT_FAILED', ending: { kind: 'crashed' } });
    expect((outcome as { message: string }).message).toContain('exited with code 1');
  });

  it('counts each token once: cached and cache-write inside input, reasoning inside output, cumulative totals not summed', async () => {
    const one = await agentAdapter('codex').dispatch(context('codex', {}).ctx);
    expect(one).toMatchObject({
      costUsd: null,
      tokens: { input: 1200, output: 300, cachedInput: 400, cacheWriteInput: 100, reasoningOutput: 120 },
    });
    const two = await agentAdapter('codex').dispatch(context('codex', { FAKE_CODEX_MODE: 'two-turns' }).ctx);
    // Two turn.completed events: the second carries the thread's totals (2000 / 500), not 3200 / 800.
    expect(two).toMatchObject({ turns: 2, tokens: { input: 2000, output: 500, cachedInput: 900, reasoningOutput: 200 } });
  });

  it('reports no dollars, and the dollar-cap rule knows it', async () => {
    expect((await agentAdapter('codex').dispatch(context('codex', {}).ctx)).costUsd).toBeNull();
    expect(reportsDollars('codex')).toBe(false);
    expect(reportsDollars('command')).toBe(false);
    expect(reportsDollars('claude')).toBe(true);
    expect(reportsDollars('opencode')).toBe(true);
    expect(reportsDollars('gemini')).toBe(false);
  });
});

// Elenchos's own stops, for every adapter: `show` explains the attempt even though the agent said nothing of it.
const HANGING: [AgentContext['config']['type'], Partial<AgentContext['config']>][] = [
  ['claude', {}],
  ['codex', {}],
  ['gemini', {}],
  ['opencode', {}],
  ['command', { command: process.execPath, args: [FAKE_AGENT, 'hang'] }],
];

describe.concurrent('an agent Elenchos stopped', () => {
  it.each(HANGING)('%s killed at agent.timeoutSeconds is AGENT_TIMEOUT, ending timed-out', async (type, extra) => {
    const { ctx } = context(type, { FAKE_AGENT_HANG: '1' }, { timeoutSeconds: 1, ...extra });
    const outcome = await agentAdapter(type).dispatch(ctx);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'AGENT_TIMEOUT',
      ending: { kind: 'timed-out', detail: 'killed after agent.timeoutSeconds (1s)' },
    });
    expect(worthRetrying(outcome)).toBe(false);
  });

  it.each(HANGING)('%s stopped by an interrupt is INTERRUPTED, ending interrupted', async (type, extra) => {
    const { ctx } = context(type, { FAKE_AGENT_HANG: '1' }, extra);
    const controller = new AbortController();
    controller.abort();
    const outcome = await agentAdapter(type).dispatch({ ...ctx, signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, reason: 'INTERRUPTED', ending: { kind: 'interrupted', detail: 'stopped by an interrupt' } });
  });
});

describe.concurrent('command adapter', () => {
  it('a command that cannot start is AGENT_FAILED naming it', async () => {
    const { ctx } = context('command', {}, { command: '/nonexistent/agent' });
    expect(await agentAdapter('command').dispatch(ctx)).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      message: 'could not start the agent "/nonexistent/agent": ENOENT',
    });
  });
});
