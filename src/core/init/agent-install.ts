// What a CI job or an image installs to run the configured agent, and the secret its CLI reads (docs/scale.md).
import type { AgentType } from '../../config/config-schema.js';

export interface AgentInstall {
  /** The npm package of the agent's CLI, or null for a `command` agent (the project brings its own). */
  npm: string | null;
  /** The environment variable holding its API key, passed from a secret to the share jobs only. */
  keyEnv: string | null;
}

export const AGENT_INSTALLS: Record<AgentType, AgentInstall> = {
  claude: { npm: '@anthropic-ai/claude-code', keyEnv: 'ANTHROPIC_API_KEY' },
  codex: { npm: '@openai/codex', keyEnv: 'OPENAI_API_KEY' },
  gemini: { npm: '@google/gemini-cli', keyEnv: 'GEMINI_API_KEY' },
  opencode: { npm: 'opencode-ai', keyEnv: 'ANTHROPIC_API_KEY' },
  command: { npm: null, keyEnv: null },
};
