// The Gemini CLI and OpenCode adapters against fakes built from their docs and source (see each fake's header).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GEMINI_PROMPT_ARG } from '../../src/agents/gemini.js';
import { agentAdapter } from '../../src/agents/registry.js';
import type { AgentContext } from '../../src/agents/types.js';
import { FIXTURES } from '../helpers/project.js';
import { agentContext } from '../helpers/agent-context.js';
import { tempDir } from '../helpers/temp.js';

// What Elenchos runs in: each CLI's own keys and settings beside others', which the adapters must filter.
const BASE_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/home/dev',
  GEMINI_API_KEY: 'gemini-key-value',
  GOOGLE_API_KEY: 'google-key-value',
  GEMINI_MODEL: 'gemini-2.5-flash',
  GOOGLE_CLOUD_PROJECT: 'my-project',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  OPENAI_API_KEY: 'sk-openai-test',
  OPENCODE_CONFIG: '/home/dev/opencode.json',
  OPENCODE_SERVER_PASSWORD: 'server-password-value',
  LT_ACCESS_KEY: 'kane-secret',
  GITHUB_TOKEN: 'ghp_caller_token_value',
  UNRELATED: 'x',
};

function context(type: 'gemini' | 'opencode', env: Record<string, string>, extra: Partial<AgentContext['config']> = {}) {
  return agentContext(type, { env, extra, baseEnv: { ...BASE_ENV } });
}

const gemini = (mode: string) => agentAdapter('gemini').dispatch(context('gemini', { FAKE_GEMINI_MODE: mode }).ctx);
const opencode = (mode: string) => agentAdapter('opencode').dispatch(context('opencode', { FAKE_OPENCODE_MODE: mode }).ctx);
const GEMINI_TOKENS = { input: 3900, output: 330 };

describe.concurrent('gemini adapter', () => {
  it('runs gemini headless with stream-json, the prompt on stdin, and reads tokens (no dollars) from the result event', async () => {
    const { ctx, seen } = context('gemini', {}, { args: ['--approval-mode', 'yolo'], passEnv: ['GEMINI_API_KEY'] });
    const outcome = await agentAdapter('gemini').dispatch(ctx);
    expect(outcome).toEqual({
      ok: true,
      exitCode: 0,
      durationMs: expect.any(Number),
      costUsd: null,
      turns: null,
      tokens: GEMINI_TOKENS,
      summary: 'Added the form and the list.',
      ending: { kind: 'finished', detail: 'success result' },
    });
    const s = seen();
    expect(s.argv).toEqual(['--output-format', 'stream-json', '--approval-mode', 'yolo', '-p', GEMINI_PROMPT_ARG]);
    expect(s.prompt).toBe(`Do the task.\n\n\n${GEMINI_PROMPT_ARG}`);
    expect(s.cwd).toBe(ctx.cwd);
    expect(s.env).toMatchObject({
      GEMINI_API_KEY: 'gemini-key-value',
      GEMINI_MODEL: 'gemini-2.5-flash',
      GOOGLE_CLOUD_PROJECT: 'my-project',
    });
    for (const key of ['GOOGLE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'LT_ACCESS_KEY', 'GITHUB_TOKEN', 'UNRELATED'])
      expect(s.env[key], key).toBeUndefined();
    expect(readFileSync(ctx.logFile, 'utf8')).toContain('"type":"result"');
  });

  it('gets no API key the config does not name, and GOOGLE_API_KEY when it does', async () => {
    const bare = context('gemini', {});
    await agentAdapter('gemini').dispatch(bare.ctx);
    expect(bare.seen().env.GEMINI_API_KEY).toBeUndefined();
    const named = context('gemini', {}, { passEnv: ['GOOGLE_API_KEY'] });
    await agentAdapter('gemini').dispatch(named.ctx);
    expect(named.seen().env.GOOGLE_API_KEY).toBe('google-key-value');
  });

  it('a non-fatal warning event still ends in success', async () => {
    expect(await gemini('warning')).toMatchObject({ ok: true, tokens: GEMINI_TOKENS });
  });

  it('exit 53 is the turn limit: limit-reached, and what it left is verified', async () => {
    const outcome = await gemini('turn-limit');
    expect(outcome).toMatchObject({ ok: true, exitCode: 53, costUsd: null, ending: { kind: 'limit-reached' } });
    expect((outcome as { ending: { detail: string } }).ending.detail).toMatch(/^exit 53, the turn limit: Reached max session turns/);
  });

  it('the turn-cap error event before a success result is a turn limit too, not a success', async () => {
    expect(await gemini('turn-limit-event')).toMatchObject({
      ok: true,
      exitCode: 0,
      tokens: GEMINI_TOKENS,
      ending: { kind: 'limit-reached', detail: 'Maximum session turns exceeded' },
    });
  });

  it('exit 42 is bad input, naming agent.args', async () => {
    const outcome = await gemini('bad-input');
    expect(outcome).toMatchObject({ ok: false, reason: 'AGENT_FAILED', exitCode: 42, tokens: null, ending: { kind: 'crashed' } });
    expect((outcome as { message: string }).message).toBe(
      'Gemini CLI refused its input (exit 42: invalid prompt or arguments; check agent.args): No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.',
    );
  });

  it('an error result keeps its type, message and tokens', async () => {
    expect(await gemini('error-result')).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      exitCode: 1,
      tokens: GEMINI_TOKENS,
      message: 'Gemini CLI failed (exit 1: general error or API failure): Error executing tool write_file: No space left on device',
      ending: { kind: 'crashed' },
    });
  });

  it('exit 1 with an overloaded API (503) is a transient API error: dispatched once more, then verified', async () => {
    const outcome = await gemini('api-error');
    expect(outcome).toMatchObject({ ok: true, exitCode: 1, tokens: null, ending: { kind: 'transient-api-error' } });
    expect((outcome as { ending: { detail: string } }).ending.detail).toContain('[API Error: got status: 503');
  });

  it('exit 0 without a result event is AGENT_FAILED', async () => {
    expect(await gemini('no-result')).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      message: 'Gemini CLI ended without a result event (is the command really `gemini`?)',
      ending: { kind: 'crashed', detail: 'no result event' },
    });
  });

  it('a crash (killed by a signal) is AGENT_FAILED naming the signal', async () => {
    const outcome = await gemini('crash');
    expect(outcome).toMatchObject({ ok: false, reason: 'AGENT_FAILED', exitCode: null, tokens: null });
    expect((outcome as { message: string }).message).toMatch(/^Gemini CLI was killed by SIGKILL/);
  });
});

describe.concurrent('opencode adapter', () => {
  it('runs opencode run --format json with the prompt on stdin, and reads cost and tokens from step_finish', async () => {
    const { ctx, seen } = context('opencode', {}, { args: ['--model', 'anthropic/claude-sonnet-4'], passEnv: ['ANTHROPIC_API_KEY'] });
    const outcome = await agentAdapter('opencode').dispatch(ctx);
    expect(outcome).toEqual({
      ok: true,
      exitCode: 0,
      durationMs: expect.any(Number),
      costUsd: 0.0203,
      turns: 1,
      tokens: { input: 2100 + 900, output: 300 + 60 },
      summary: 'Added the form and the list.',
      ending: { kind: 'finished', detail: '1 step(s)' },
    });
    const s = seen();
    expect(s.argv).toEqual(['run', '--format', 'json', '--model', 'anthropic/claude-sonnet-4']);
    expect(s.prompt).toBe('Do the task.\n');
    expect(s.env).toMatchObject({ ANTHROPIC_API_KEY: 'sk-ant-test', OPENCODE_CONFIG: '/home/dev/opencode.json' });
    for (const key of ['OPENCODE_SERVER_PASSWORD', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'LT_ACCESS_KEY', 'GITHUB_TOKEN', 'UNRELATED'])
      expect(s.env[key], key).toBeUndefined();
  });

  it('sums cost and tokens over every step, each counted once', async () => {
    const outcome = await opencode('two-steps');
    expect(outcome).toMatchObject({ ok: true, turns: 2, tokens: { input: 2200 + 3000, output: 240 + 360 } });
    expect(outcome.costUsd).toBeCloseTo(0.0315, 10);
  });

  it('a step reporting a negative cost or negative tokens cannot lower the spend', async () => {
    expect(await opencode('negative-cost')).toMatchObject({ ok: true, costUsd: 0.0203, turns: 2, tokens: { input: 3000, output: 360 } });
  });

  it('permissions it auto-rejected are said in the summary; the verifier still decides', async () => {
    expect(await opencode('rejected')).toMatchObject({
      ok: true,
      summary: 'OpenCode auto-rejected permissions (external_directory, bash); Added the form and the list.',
    });
  });

  it('a retryable API error (429) is a transient API error, exit 1 or 0: dispatched once more, then verified', async () => {
    for (const mode of ['error', 'error-exit-0']) {
      expect(await opencode(mode)).toMatchObject({
        ok: true,
        costUsd: null,
        turns: 0,
        ending: { kind: 'transient-api-error', detail: 'statusCode 429: APIError: Rate limit exceeded' },
      });
    }
  });

  it('a provider auth error is a crash (AGENT_FAILED); the output limit is limit-reached (verified)', async () => {
    expect(await opencode('auth-error')).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      exitCode: 1,
      message: 'OpenCode exited with code 1: ProviderAuthError: API key is missing or invalid',
      ending: { kind: 'crashed' },
    });
    expect(await opencode('output-length')).toMatchObject({ ok: true, exitCode: 1, ending: { kind: 'limit-reached' } });
  });

  it('no message is bad input: exit 1 with its stderr', async () => {
    expect(await opencode('no-message')).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      exitCode: 1,
      message: 'OpenCode exited with code 1: Error: You must provide a message or a command',
    });
  });

  it('exit 0 with no event at all is AGENT_FAILED', async () => {
    expect(await opencode('no-events')).toMatchObject({
      ok: false,
      reason: 'AGENT_FAILED',
      message: 'OpenCode ended without a step_finish or done event (is the command really `opencode`?)',
    });
  });

  it('a crash (killed by a signal) is AGENT_FAILED naming the signal', async () => {
    const outcome = await opencode('crash');
    expect(outcome).toMatchObject({ ok: false, reason: 'AGENT_FAILED', exitCode: null, costUsd: null });
    expect((outcome as { message: string }).message).toMatch(/^OpenCode was killed by SIGKILL/);
  });
});

describe('the wrong executable', () => {
  it('agent.command pointing at another CLI fails on its exit, never passes for a success', async () => {
    const { ctx } = context('opencode', {}, { command: path.join(FIXTURES, 'bin', 'gemini') });
    // Gemini refuses `run --format json` as input error (42): the opencode adapter reports that exit.
    expect(await agentAdapter('opencode').dispatch(ctx)).toMatchObject({ ok: false, reason: 'AGENT_FAILED', exitCode: 42 });
    const swapped = context('gemini', {}, { command: path.join(FIXTURES, 'bin', 'opencode') });
    expect(await agentAdapter('gemini').dispatch(swapped.ctx)).toMatchObject({ ok: false, reason: 'AGENT_FAILED', exitCode: 1 });
  });
});

// The sandbox's /tmp is private, so a HOME under /tmp would hide Kane's credentials by accident: keep it elsewhere.
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});
function homeOutsideTmp(): string {
  // Not beside the project either: a clone of it may itself live under /tmp (CI clones into a temp folder).
  const home = mkdtempSync(path.join('/var/tmp', 'elenchos-home-'));
  homes.push(home);
  return home;
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))('agent.sandbox bwrap', () => {
  it.each([
    ['gemini', ['.gemini']],
    ['opencode', ['.local/share/opencode', '.config/opencode']],
  ] as const)('%s runs confined: its own state writable, Kane credentials hidden, its work done', async (type, own) => {
    const home = homeOutsideTmp();
    for (const dir of own) mkdirSync(path.join(home, dir), { recursive: true });
    mkdirSync(path.join(home, '.testmuai'));
    writeFileSync(path.join(home, '.testmuai/credentials'), 'access_key=kane-secret-value\n');
    const { ctx } = context(type, {}, { sandbox: 'bwrap' });
    // The fake goes into the worktree, which the sandbox always shows: the fixtures may be under /tmp.
    cpSync(path.join(FIXTURES, 'bin', type), path.join(ctx.cwd, '.fake-bin', type));
    cpSync(path.join(FIXTURES, 'bin', 'lib'), path.join(ctx.cwd, '.fake-bin', 'lib'), { recursive: true });
    ctx.config.command = path.join(ctx.cwd, '.fake-bin', type);
    // The sandbox's /tmp is private: the fake records inside the worktree, the one place it may write.
    const record = path.join(ctx.cwd, 'record.json');
    ctx.config.env = { FAKE_AGENT_RECORD: record, FAKE_HOME_OWN: own.join(',') };
    ctx.baseEnv = { ...ctx.baseEnv, HOME: home };
    ctx.checkout = tempDir('elenchos-checkout-');
    const outcome = await agentAdapter(type).dispatch(ctx);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
    const seen = JSON.parse(readFileSync(record, 'utf8')) as { env: Record<string, string>; home: Record<string, unknown> };
    expect(seen.home).toEqual({ writes: Object.fromEntries(own.map((dir) => [dir, true])), readKane: false });
    // The control: unconfined, the same agent reads Kane's credentials.
    const open = context(type, { FAKE_HOME_OWN: own.join(',') });
    open.ctx.baseEnv = { ...open.ctx.baseEnv, HOME: home };
    await agentAdapter(type).dispatch(open.ctx);
    expect((open.seen() as unknown as { home: unknown }).home).toMatchObject({ readKane: true });
    expect(seen.env.ELENCHOS_PROMPT_FILE).toBe('/tmp/elenchos/prompt.md');
    expect(readFileSync(path.join(ctx.cwd, 'page.html'), 'utf8')).toContain('<form>');
  });
});
