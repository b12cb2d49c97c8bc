// The app's side of an attempt that could not start it: what happened, the app's last log lines, and the base probe.
import type { AppRecord } from '../evidence/attempt-record.js';

export interface AppFailureView {
  message: string;
  logTail: string[];
  /** How the app fared on the unchanged base commit, when Elenchos tried it. */
  base: { ok: boolean; message: string; logTail: string[] } | null;
}

/** Reads attempt.json's `app`; null when the app came up or was never started. */
export function appFailureOf(attempt: { app: AppRecord | null } | null | undefined): AppFailureView | null {
  const app = attempt?.app;
  if (!app || app.ok) return null;
  const probe = app.baseProbe ?? null;
  return {
    message: app.message,
    logTail: linesOf(app.logTail),
    base: probe ? { ok: probe.ok, message: probe.message, logTail: linesOf(probe.logTail) } : null,
  };
}

/** The same, as indented text lines for `elenchos show`. */
export function describeAppFailure(view: AppFailureView): string[] {
  const lines = [`app did not come up: ${view.message}`];
  if (view.logTail.length > 0) lines.push('  last lines of the app log:', ...view.logTail.map((l) => `  | ${l}`));
  else lines.push('  (the app printed nothing)');
  if (view.base) {
    lines.push(
      view.base.ok
        ? `on the unchanged base commit the app comes up (${view.base.message}): the change broke it`
        : `on the unchanged base commit it does not come up either: ${view.base.message}`,
    );
    if (!view.base.ok && view.base.logTail.length > 0)
      lines.push('  last lines of the base app log:', ...view.base.logTail.map((l) => `  | ${l}`));
  }
  return lines;
}

function linesOf(value: string | undefined): string[] {
  return value !== undefined && value.trim() !== '' ? value.split('\n') : [];
}
