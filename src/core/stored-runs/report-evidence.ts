// What the HTML report shows beside a failing test: its screenshots (inline), its trace (a link and the
// exact show-trace command), the page snapshot Playwright saved, and Playwright's own HTML report.
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isRasterImage } from '../../util/raster-image.js';
import { attemptPaths } from '../../evidence/layout.js';

export interface FindingEvidence {
  /** `data:` URIs: the report's CSP allows no other image source, and the file stays self-contained. */
  screenshots: string[];
  trace: { href: string; command: string } | null;
  /** Playwright's `error-context.md` (the page's accessibility snapshot at the failure). */
  pageSnapshot: string | null;
}

export interface AttemptEvidence {
  /** Aligned with the attempt's findings (null: nothing beside that finding). */
  findings: (FindingEvidence | null)[];
  /** Link to Playwright's HTML report of the attempt, when one was produced. */
  playwrightReport: string | null;
}

// Screenshots bigger than this are linked, not inlined: a report must stay openable.
const MAX_INLINE_BYTES = 2 * 1024 * 1024;
const MAX_SNAPSHOT_CHARS = 16 * 1024;

interface StoredFinding {
  attachments?: { name?: string; contentType?: string | null; path?: string | null }[];
}

/** Evidence of each finding of a stored attempt; links are relative to `reportDir`. */
export async function gatherAttemptEvidence(
  attemptDir: string,
  findings: readonly StoredFinding[],
  reportDir: string,
): Promise<AttemptEvidence> {
  const out: (FindingEvidence | null)[] = [];
  for (const finding of findings) {
    const attachments = (finding.attachments ?? []).map((a) => ({ ...a, file: locate(attemptDir, a.path ?? null) }));
    if (attachments.length === 0) {
      out.push(null);
      continue;
    }
    const screenshots: string[] = [];
    for (const a of attachments) {
      // The type goes into the data: URI.
      if (!a.file || !isRasterImage(a.contentType)) continue;
      if ((await stat(a.file)).size > MAX_INLINE_BYTES) continue;
      screenshots.push(`data:${a.contentType};base64,${(await readFile(a.file)).toString('base64')}`);
    }
    const trace = attachments.find((a) => a.name === 'trace' && a.file);
    const context = attachments.find((a) => a.file && path.basename(a.file) === 'error-context.md');
    const snapshot = context?.file ? await readFile(context.file, 'utf8').catch(() => null) : null;
    out.push({
      screenshots,
      trace: trace?.file ? { href: relativeHref(reportDir, trace.file), command: `npx playwright show-trace ${quote(trace.file)}` } : null,
      pageSnapshot:
        snapshot === null ? null : snapshot.length > MAX_SNAPSHOT_CHARS ? `${snapshot.slice(0, MAX_SNAPSHOT_CHARS)}\n…` : snapshot,
    });
  }
  const report = attemptPaths(attemptDir).playwrightReport;
  return { findings: out, playwrightReport: existsSync(report) ? relativeHref(reportDir, report) : null };
}

/**
 * Where an attachment is now: its recorded path, or the same file under this attempt's `verifier/`
 * (the run folder was moved or copied since, e.g. a CI artifact).
 */
function locate(attemptDir: string, recorded: string | null): string | null {
  if (!recorded) return null;
  const at = recorded.lastIndexOf(`${path.sep}verifier${path.sep}`);
  const moved = at >= 0 ? path.join(attemptDir, recorded.slice(at + 1)) : null;
  if (moved && existsSync(moved)) return moved;
  return existsSync(recorded) ? recorded : null;
}

function relativeHref(from: string, file: string): string {
  return path.relative(from, file).split(path.sep).map(encodeURIComponent).join('/');
}

/** Quotes a path for a POSIX shell when it needs it. */
function quote(file: string): string {
  return /^[\w./@%+=:,-]+$/.test(file) ? file : `'${file.replaceAll("'", "'\\''")}'`;
}
