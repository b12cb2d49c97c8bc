// A run's secrets, and the reporter wrapper that keeps them out of everything printed.
import type { Config } from '../../config/config-schema.js';
import type { Task } from '../../contract/task-schema.js';
import { Redactor } from '../../evidence/redact.js';
import { collectSecretValues } from '../../evidence/secret-values.js';
import type { RunReporter } from '../events.js';

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
  // Each source's lines are one stream: a secret that base64 wraps over lines is judged with the lines before.
  const streams = new Map<string, (line: string) => string>();
  const streamOf = (source: string) => {
    let stream = streams.get(source);
    if (!stream) streams.set(source, (stream = redactor.lineStream()));
    return stream;
  };
  return {
    onEvent: (event) =>
      inner.onEvent(event.type === 'output' ? { ...event, line: streamOf(event.source)(event.line) } : redactValue(event, redactor)),
  };
}

/** A copy of `value` with every string redacted (the run record returned to `--json`, JUnit and annotations). */
export function redactValue<T>(value: T, redactor: Redactor): T {
  const clean = (item: unknown): unknown => {
    if (typeof item === 'string') return redactor.redactText(item);
    if (Array.isArray(item)) return item.map(clean);
    if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, clean(v)]));
    return item;
  };
  return clean(value) as T;
}
