// Picks an agent adapter by `agent.type`.
import type { AgentType } from '../config/config-schema.js';
import { claudeAgent } from './claude.js';
import { codexAgent } from './codex.js';
import { commandAgent } from './command.js';
import { geminiAgent } from './gemini.js';
import { opencodeAgent } from './opencode.js';
import type { AgentAdapter } from './types.js';

const adapters: Record<AgentType, AgentAdapter> = {
  command: commandAgent,
  claude: claudeAgent,
  codex: codexAgent,
  gemini: geminiAgent,
  opencode: opencodeAgent,
};

/** The adapter for `type`. */
export function agentAdapter(type: AgentType): AgentAdapter {
  return adapters[type];
}
