// The app's side of an attempt that could not start it: what happened, the app's last log lines, and the base probe.

interface StoredApp {
  ok?: unknown;
  message?: unknown;
  logTail?: unknown;
  baseProbe?: { ok?: unknown; message?: unknown; logTail?: unknown } | null;
}

export interface AppFailureView {
  message: string;
  logTail: string[];
  /** How the app fared on the unchanged base commit, when Elenchos tried it. */
  base: { ok: boolean; message: string; logTail: string[] } | null;
}

/** Reads attempt.json's `app` (untrusted shape); null when the app came up or was never started. */
export function appFailureOf(attempt: Record<string, unknown> | null | undefined): AppFailureView | null {
  const app = attempt?.app as StoredApp | null | undefined;
  if (!app || typeof app !== 'object' || app.ok !== false) return null;
  const probe = app.baseProbe && typeof app.baseProbe === 'object' ? app.baseProbe : null;
  return {
    message: String(app.message ?? ''),
    logTail: linesOf(app.logTail),
    base: probe ? { ok: probe.ok === true, message: String(probe.message ?? ''), logTail: linesOf(probe.logTail) } : null,
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

function linesOf(value: unknown): string[] {
  return typeof value === 'string' && value.trim() !== '' ? value.split('\n') : [];
}
