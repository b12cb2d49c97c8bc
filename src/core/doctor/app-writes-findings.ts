// What the app wrote in the probe's worktree, as doctor lines: each path with the `app.writes` entry that
// declares it, so that the first run does not end UNSTABLE_WORKSPACE on the app's own data.
import fg from 'fast-glob';
import { ok, warn, type DoctorCheck } from './doctor-check.js';

/** A path the window saw written, and what it is once the app stopped. */
export interface WrittenPath {
  path: string;
  /** `folder`: created by the app (the watch does not look inside a folder it did not expect); `gone`: written and removed again. */
  kind: 'file' | 'folder' | 'gone';
  /** For a folder: the files in it once the app stopped (repository-relative). */
  holds?: string[];
}

/** More lines than this would bury the rest of the report: the remainder is counted in one line. */
const MAX_LINES = 20;

export const APP_WRITES_CHECK = 'app writes';

/**
 * One warning per undeclared write with the glob to add to `app.writes`; one ok line when there is none.
 * A write to a file a run locks (`locked`: a task, its test, what the verifier reads, such as the
 * tsconfig.json Next.js rewrites) cannot be declared (preflight refuses a glob that covers one, and the
 * run would end CONTRACT_CHANGED): its line says to commit what the app writes there instead.
 */
export function appWriteFindings(
  seen: readonly WrittenPath[],
  declared: readonly string[],
  configLabel: string,
  locked: readonly string[] = [],
): DoctorCheck[] {
  // What lies in a folder the app created is covered by that folder's glob (a folder it may create, as
  // Rails' `log`, is watched inside and reports both the new subfolder and what it holds).
  const folders = seen.filter((w) => w.kind === 'folder').map((w) => `${w.path}/`);
  const all = seen.filter((w) => !folders.some((folder) => w.path.startsWith(folder)));
  if (all.length === 0)
    return [ok(APP_WRITES_CHECK, 'the app wrote nothing git tracks or would commit while it started and answered a request')];
  const lockedSet = new Set(locked);
  const contract = all.filter((w) => lockedSet.has(w.path)).map((w) => lockedWrite(w));
  const written = all.filter((w) => !lockedSet.has(w.path));
  if (written.length === 0) return contract;
  const globs = written.map(suggestedGlob);
  const checks = written.slice(0, MAX_LINES).map((entry, i) => {
    const glob = globs[i]!;
    const what = entry.kind === 'folder' ? `created the folder ${entry.path}/${holding(entry.holds ?? [])}` : `wrote ${entry.path}`;
    const gone =
      entry.kind === 'gone' ? ' (and removed it again: if its name changes at each start, declare a glob that covers every name)' : '';
    return warn(
      APP_WRITES_CHECK,
      `the app ${what} while it started and answered a request: each run would end UNSTABLE_WORKSPACE`,
      `add "${glob}" to app.writes in ${configLabel}${gone}, or to .gitignore if it is not meant to be committed`,
    );
  });
  if (written.length > MAX_LINES) {
    checks.push(
      warn(APP_WRITES_CHECK, `and ${written.length - MAX_LINES} more path(s) the app wrote`, 'see the line below for every glob'),
    );
  }
  // The whole key as it should read, so several findings need not be merged by hand.
  const line = `"writes": ${JSON.stringify([...new Set([...declared, ...globs])])}`;
  checks.at(-1)!.details.push(`in ${configLabel}, under "app": ${line}`);
  return [...contract, ...checks];
}

/** A locked file the app rewrote (or removed): what it writes there belongs in the commit, not in app.writes. */
function lockedWrite(entry: WrittenPath): DoctorCheck {
  const what = entry.kind === 'gone' ? `removed ${entry.path}` : `rewrote ${entry.path}`;
  return warn(
    APP_WRITES_CHECK,
    `the app ${what} while it started, a file a run locks (the task, its test, or what the verifier reads): each run would end CONTRACT_CHANGED`,
    `start the app once in your checkout and commit ${entry.path} as it leaves it (a dev server such as Next.js rewrites tsconfig.json until it has what it wants); app.writes cannot cover a file the run locks`,
  );
}

function holding(files: readonly string[]): string {
  if (files.length === 0) return '';
  const more = files.length > 3 ? ` and ${files.length - 3} more` : '';
  return ` (holding ${files.slice(0, 3).join(', ')}${more})`;
}

/** The `app.writes` entry for a path: the path itself (glob characters escaped), or all of a new folder. */
export function suggestedGlob(entry: WrittenPath): string {
  const escaped = fg.escapePath(entry.path);
  return entry.kind === 'folder' ? `${escaped}/**` : escaped;
}
