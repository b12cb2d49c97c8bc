// A named agent's name (config `agents`, `run --agents`): here without zod, so that `--help` loads none.
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
