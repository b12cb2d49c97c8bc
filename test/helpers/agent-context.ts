// An AgentContext for the adapter tests: the fake CLI of `type` (test/fixtures/bin/<type>) in a temp folder,
// recording what it was given (argv, cwd, env, prompt) for `seen()`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentContext } from '../../src/agents/types.js';
import { FIXTURES } from './project.js';
import { tempDir } from './temp.js';

export interface AgentContextOptions {
  /** The fake's own variables (FAKE_CLAUDE_MODE, …), on top of its record file. */
  env?: Record<string, string>;
  /** More of the agent's config (model, args, command, passEnv, …). */
  extra?: Partial<AgentContext['config']>;
  /** The environment Elenchos runs in, which the adapter filters. */
  baseEnv?: NodeJS.ProcessEnv;
  attempt?: number;
}

/** The context and a reader of what the fake recorded. */
export function agentContext(type: AgentContext['config']['type'], options: AgentContextOptions = {}) {
  const cwd = tempDir('elenchos-agent-');
  const record = path.join(cwd, '..', `${path.basename(cwd)}.record.json`);
  const promptFile = path.join(cwd, '..', `${path.basename(cwd)}.prompt.md`);
  writeFileSync(promptFile, 'Do the task.\n');
  const ctx: AgentContext = {
    cwd,
    prompt: 'Do the task.\n',
    promptFile,
    taskFile: path.join(cwd, 'tasks/a.json'),
    attempt: options.attempt ?? 1,
    config: {
      type,
      command: path.join(FIXTURES, 'bin', type),
      args: [],
      timeoutSeconds: 20,
      env: { FAKE_AGENT_RECORD: record, ...options.env },
      passEnv: [],
      sandbox: 'none',
      ...options.extra,
    },
    baseEnv: options.baseEnv ?? { PATH: process.env.PATH, HOME: '/home/dev' },
    logFile: path.join(cwd, '..', `${path.basename(cwd)}.log`),
    signal: new AbortController().signal,
  };
  const seen = () =>
    JSON.parse(readFileSync(record, 'utf8')) as { argv: string[]; cwd: string; env: Record<string, string>; prompt: string };
  return { ctx, seen };
}
