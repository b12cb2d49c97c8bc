// `agent.type: command`: any executable; the prompt arrives on stdin and in ELENCHOS_PROMPT_FILE.
import { buildAgentEnv } from './agent-env.js';
import { dispatchProcess } from './dispatch.js';
import type { AgentAdapter } from './types.js';

export const commandAgent: AgentAdapter = {
  type: 'command',
  command: (config) => ({ command: config.command ?? '', args: [...config.args] }),
  async dispatch(context) {
    const { command, args } = this.command(context.config);
    const env = buildAgentEnv({ baseEnv: context.baseEnv, extra: context.config.env, elenchos: elenchosVars(context) });
    return (await dispatchProcess(context, { command, args, env, input: context.prompt })).outcome;
  },
};

/** The ELENCHOS_* variables every agent gets. */
export function elenchosVars(context: { promptFile: string; taskFile: string; attempt: number; cwd: string }): Record<string, string> {
  return {
    ELENCHOS_PROMPT_FILE: context.promptFile,
    ELENCHOS_TASK_FILE: context.taskFile,
    ELENCHOS_ATTEMPT: String(context.attempt),
    ELENCHOS_WORKSPACE: context.cwd,
  };
}
