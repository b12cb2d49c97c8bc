// `agent.model` as the agent's own flag. Every CLI with an adapter takes `--model <name>`:
// Claude Code `--model` (support.claude.com, "Claude Code model configuration"); Codex `-m, --model`
// (openai/codex codex-rs SharedCliOptions, global for `codex exec` in codex-rs/exec/src/cli.rs);
// Gemini CLI `--model, -m` (google-gemini/gemini-cli docs/cli/cli-reference.md); OpenCode `run --model,
// -m` as provider/model (opencode.ai/docs/cli). The config refuses `model` for a command agent.
import type { AgentConfig } from './types.js';

/** `['--model', <model>]`, or nothing when the config names none (the agent's own default). */
export function modelArgs(config: Pick<AgentConfig, 'model'>): string[] {
  return config.model === undefined ? [] : ['--model', config.model];
}
