// `agent.type: command`: any executable; the prompt arrives on stdin and in ELENCHOS_PROMPT_FILE.
import { dispatchAgent } from './dispatch.js';
import type { AgentAdapter } from './types.js';

export const commandAgent: AgentAdapter = {
  type: 'command',
  command: (config) => ({ command: config.command ?? '', args: [...config.args] }),
  async dispatch(context) {
    return (await dispatchAgent(context, this.command(context.config))).outcome;
  },
};
