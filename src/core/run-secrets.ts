// A run's secrets, and the reporter wrapper that keeps them out of everything printed.
import type { Config } from '../config/config-schema.js';
import type { Task } from '../contract/task-schema.js';
import { Redactor } from '../evidence/redact.js';
import { collectSecretValues } from '../evidence/secret-values.js';
import type { RunEvent, RunReporter } from './events.js';

/** Values that must never reach evidence or the terminal: see collectSecretValues. */
export function runSecretValues(config: Config, task: Task, env: NodeJS.ProcessEnv): string[] {
  return collectSecretValues({
    env,
    redactEnv: config.redact,
    variables: { ...config.verifier.variables, ...(task.verification.variables ?? {}) },
    configEnv: [config.agent.env, config.app.env, config.verifier.env],
  });
}

/**
 * Passes every event on with each string redacted: the `[agent]` and `[app]` lines, summaries and
 * messages end up in CI logs, which are as public as the evidence is private.
 */
export function redactingReporter(inner: RunReporter, redactor: Redactor): RunReporter {
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return redactor.redactText(value);
    if (Array.isArray(value)) return value.map(clean);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]));
    return value;
  };
  return { onEvent: (event) => inner.onEvent(clean(event) as RunEvent) };
}
