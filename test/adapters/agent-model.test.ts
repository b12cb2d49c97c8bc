// `agent.model` (and `agents.<name>.model`): each adapter passes it as its CLI's own flag, against the
// fakes (which name the model they were given in their init event, as Claude Code and Gemini CLI do);
// the config refuses it where no flag can carry it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentAdapter } from '../../src/agents/registry.js';
import { ConfigSchema } from '../../src/config/config-schema.js';
import { agentContext } from '../helpers/agent-context.js';

type Typed = 'claude' | 'codex' | 'gemini' | 'opencode';

async function dispatch(type: Typed, model: string | undefined, args: string[] = []) {
  const { ctx, seen } = agentContext(type, { extra: { model, args } });
  const outcome = await agentAdapter(type).dispatch(ctx);
  return { outcome, argv: seen().argv, log: readFileSync(ctx.logFile, 'utf8') };
}

describe('agent model', () => {
  it.each([
    ['claude', ['--max-turns', '5'], ['-p', '--output-format', 'stream-json', '--verbose', '--model', 'opus', '--max-turns', '5']],
    ['codex', ['--skip-git-repo-check'], ['exec', '--json', '--model', 'opus', '--skip-git-repo-check', '-']],
    ['opencode', ['--print-logs'], ['run', '--format', 'json', '--model', 'opus', '--print-logs']],
  ] as const)('%s gets --model <model> before the configured args, and still works', async (type, args, argv) => {
    const { outcome, argv: seen } = await dispatch(type, 'opus', [...args]);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(seen).toEqual(argv);
  });

  it('gemini gets --model <model> before -p, and names it in its init event', async () => {
    const { outcome, argv, log } = await dispatch('gemini', 'gemini-2.5-flash');
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(argv.slice(0, 4)).toEqual(['--output-format', 'stream-json', '--model', 'gemini-2.5-flash']);
    expect(argv[4]).toBe('-p');
    expect(log).toContain('"model":"gemini-2.5-flash"');
  });

  it("claude's init event names the model it was given; without model, no flag and the CLI's default", async () => {
    expect((await dispatch('claude', 'claude-opus-4-5')).log).toContain('"model":"claude-opus-4-5"');
    const plain = await dispatch('claude', undefined);
    expect(plain.argv).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    expect(plain.log).toContain('"model":"claude-sonnet"');
  });
});

describe('agent model in the config', () => {
  const issues = (config: unknown) => {
    const parsed = ConfigSchema.safeParse(config);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('is accepted on agent and on each named agent', () => {
    const parsed = ConfigSchema.parse({
      agent: { type: 'claude', model: 'opus' },
      agents: { fast: { type: 'codex', model: 'gpt-5-codex' } },
    });
    expect(parsed.agent.model).toBe('opus');
    expect(parsed.agents.fast!.model).toBe('gpt-5-codex');
  });
  it('is refused for a command agent (its flag is unknown), naming the key and the fix', () => {
    expect(issues({ agents: { mine: { type: 'command', command: 'x', model: 'opus' } } })).toEqual([
      'agents.mine.model: the command agent takes no model: Elenchos cannot know its flag; put it in args (e.g. ["--model", "opus"]) or remove model',
    ]);
    // type defaults to command
    expect(issues({ agent: { command: 'x', model: 'opus' } })[0]).toMatch(/^agent\.model: the command agent takes no model/);
  });
  it('is refused beside a model flag in args (the CLI would get the flag twice)', () => {
    expect(issues({ agent: { type: 'codex', model: 'a', args: ['-m', 'b'] } })).toEqual([
      'agent.model: args already name the model (-m); keep model or that flag, not both',
    ]);
    expect(issues({ agent: { type: 'claude', model: 'a', args: ['--model=b'] } })).toHaveLength(1);
    // Claude Code has no -m: an argument "-m" is not taken for a model flag there.
    expect(issues({ agent: { type: 'claude', model: 'a', args: ['-m'] } })).toEqual([]);
  });
});
