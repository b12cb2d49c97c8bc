// Proof that a working tree did not move: HEAD plus a hash of only what differs from it.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { mapLimit } from '../util/map-limit.js';
import { digestPath } from './path-digest.js';
import { isUnderPrefix } from './path-prefix.js';
import { ELENCHOS_DIR, headCommit, readStatus } from './status.js';

export type WorkspaceSnapshot = {
  head: string;
  /** SHA-256 over every changed path and its digest; equal trees give equal hashes. */
  contentHash: string;
  /** Paths that differ from HEAD or the index (modified, deleted, untracked), sorted. */
  changed: string[];
  /** Path → digest (`deleted`, `link:<target>`, `file:<mode>:<sha256>`), for explaining a difference. */
  entries: Record<string, string>;
  /** Path → git's two status letters (`??` untracked); explains a difference, not part of the hash. */
  codes: Record<string, string>;
};

export interface SnapshotOptions {
  /** Repository-relative path prefixes left out (a verifier's own output folders). */
  exclude?: string[];
  /** Paths the app writes by design (`app.writes` and the built-in list), left out too. */
  skip?: (repoPath: string) => boolean;
}

/**
 * Snapshots `cwd` at a cost proportional to the change, not the repository: git already knows which
 * paths differ from HEAD (`git status`), so only those are read and hashed. A path git does not list
 * has the content the index records for it, which the index ties to HEAD plus the listed changes;
 * so equal head + contentHash means an equal working tree (git-ignored files aside).
 */
export async function snapshotWorkspace(cwd: string, options: SnapshotOptions = {}): Promise<WorkspaceSnapshot> {
  const exclude = [ELENCHOS_DIR, ...(options.exclude ?? [])];
  const status = await readStatus(cwd, { noRenames: true });
  const head = status.head ?? (await headCommit(cwd)); // headCommit explains a missing commit
  const codes: Record<string, string> = {};
  const skip = options.skip ?? (() => false);
  for (const entry of status.entries) {
    if (!isUnderPrefix(entry.path, exclude) && !skip(entry.path)) codes[entry.path] = `${entry.x}${entry.y}`;
  }
  const changed = Object.keys(codes).sort();
  // The working tree's content only, not the index letters: staging a file moves nothing a browser sees.
  const digests = await mapLimit(changed, 16, (p) => digestPath(path.join(cwd, p)));
  const entries: Record<string, string> = {};
  const hash = createHash('sha256');
  changed.forEach((p, i) => {
    const digest = digests[i] as string;
    entries[p] = digest;
    hash.update(`${p}\0${digest}\n`);
  });
  return { head, contentHash: hash.digest('hex'), changed, entries, codes };
}

/** Whether two snapshots describe the same tree. */
export function sameSnapshot(a: WorkspaceSnapshot, b: WorkspaceSnapshot): boolean {
  return a.head === b.head && a.contentHash === b.contentHash;
}

/** What differs between two snapshots, one line each, for the UNSTABLE_WORKSPACE message. */
export function diffSnapshots(a: WorkspaceSnapshot, b: WorkspaceSnapshot): string[] {
  const lines: string[] = [];
  if (a.head !== b.head) lines.push(`HEAD moved from ${a.head.slice(0, 12)} to ${b.head.slice(0, 12)}`);
  const before = a.entries ?? {};
  const after = b.entries ?? {};
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const p of paths) {
    const line = describeChange(p, before[p], after[p], a.codes?.[p], b.codes?.[p]);
    if (line) lines.push(line);
  }
  if (lines.length === 0 && a.contentHash !== b.contentHash) lines.push('working tree content changed');
  return lines;
}

function describeChange(
  p: string,
  before: string | undefined,
  after: string | undefined,
  codeBefore: string | undefined,
  code: string | undefined,
): string | null {
  if (before === after) return null;
  // Gone from the list: an untracked file was removed, a tracked one went back to what git has.
  if (after === undefined) return codeBefore === '??' ? `${p}: deleted` : `${p}: restored to its committed content`;
  if (after === 'deleted') return `${p}: deleted`;
  if (before === undefined || before === 'deleted') {
    if (after.startsWith('link:')) return `${p}: now a symlink to ${after.slice(5)}`;
    return code === '??' || before === 'deleted' ? `${p}: created` : `${p}: modified`;
  }
  if (before.startsWith('link:') && after.startsWith('link:')) {
    return `${p}: symlink retargeted from ${before.slice(5)} to ${after.slice(5)}`;
  }
  const [kindA, modeA, shaA] = before.split(':');
  const [kindB, modeB, shaB] = after.split(':');
  if (kindA === 'file' && kindB === 'file' && shaA === shaB && modeA !== modeB) return `${p}: mode changed from ${modeA} to ${modeB}`;
  if (kindA !== kindB) return `${p}: type changed (${kindA} → ${kindB})`;
  return `${p}: content changed`;
}
