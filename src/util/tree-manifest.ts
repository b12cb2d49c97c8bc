// A manifest of a file tree (every entry's type, mode, size, sha256, symlink target), read without ever
// following a symlink, and the check of a tree on disk against one: what the setup cache trusts.
import { lstat, open } from 'node:fs/promises';
import { constants, lstatSync, readdirSync, readlinkSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { mapLimit } from './map-limit.js';
import { sha256 } from './sha256.js';

export interface ManifestEntry {
  /** Relative to the tree's root (the worktree), with `/` separators. */
  path: string;
  type: 'dir' | 'file' | 'symlink';
  /** Permission bits (`mode & 0o777`); 0 for symlinks. */
  mode: number;
  size?: number;
  sha256?: string;
  target?: string;
}

export type WalkResult = { ok: true; entries: ManifestEntry[] } | { ok: false; reason: string };

/** Reads a file without following a symlink at its own name: its bytes, to hash and copy from one read. */
export async function readNoFollow(file: string): Promise<Buffer> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Called with each file's bytes as they are hashed (the setup cache copies them from this one read). */
export type FileVisitor = (entry: ManifestEntry, data: Buffer) => Promise<void>;

export interface WalkOptions {
  onFile?: FileVisitor;
  /** Filled with each file's stat signature (see statSignature). */
  signatures?: Map<string, string>;
  /** Files whose bytes need not be read: returns the size and sha256 they are known to have. */
  known?: (entry: ManifestEntry, signature: string) => { size: number; sha256: string } | null;
}

/**
 * Inode, size, mode, ctime and mtime in nanoseconds. No process can set a file's ctime: any write,
 * chmod or replacement after the signature was taken gives another one (what git's index relies on).
 */
export function statSignature(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mode}:${stat.ctimeNs}:${stat.mtimeNs}`;
}

/** What scanTree found: every entry (files without size or hash yet) and the newest file ctime seen. */
export type ScanResult = { ok: true; entries: ManifestEntry[]; maxCtimeNs: bigint } | { ok: false; reason: string };

/**
 * Lists `paths` (relative to `root`) and everything under them without reading any file: types,
 * modes, symlink targets, and each file's stat signature (into `signatures`). A top-level path that
 * is a symlink, a symlink whose target is absolute or leaves `root`, or a special file makes the tree
 * unfit to save: reusing it elsewhere would reach outside the worktree. Missing paths list nothing.
 */
export async function scanTree(root: string, paths: readonly string[], signatures: Map<string, string>): Promise<ScanResult> {
  const entries: ManifestEntry[] = [];
  const clock = { maxCtimeNs: 0n };
  for (const top of paths) {
    const stat = await lstat(path.join(root, top)).catch(() => null);
    if (!stat) continue;
    if (stat.isSymbolicLink()) return { ok: false, reason: `${top} is a symlink (never followed, never saved)` };
    const problem = walkEntry(path.join(root, top), top, entries, signatures, clock);
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true, entries, maxCtimeNs: clock.maxCtimeNs };
}

/**
 * Lists `paths` like scanTree, then hashes every file (reading it, unless `known` vouches for it).
 */
export async function walkTree(root: string, paths: readonly string[], options: WalkOptions = {}): Promise<WalkResult> {
  const signatures = options.signatures ?? new Map<string, string>();
  const scanned = await scanTree(root, paths, signatures);
  if (!scanned.ok) return scanned;
  const { entries } = scanned;
  // Structure first, then the files a few at a time: node_modules is thousands of small files. Those
  // `known` vouches for are settled here, without a promise each (a kept tree: all of them).
  const files: ManifestEntry[] = [];
  for (const entry of entries) {
    if (entry.type !== 'file') continue;
    const known = options.known?.(entry, signatures.get(entry.path) ?? '');
    if (!known) files.push(entry);
    else {
      entry.size = known.size;
      entry.sha256 = known.sha256;
    }
  }
  await mapLimit(files, 16, async (entry) => {
    const data = await readNoFollow(path.join(root, entry.path));
    entry.size = data.length;
    entry.sha256 = sha256(data);
    if (options.onFile) await options.onFile(entry, data);
  });
  return { ok: true, entries };
}

/**
 * Reads a file (never through a symlink at its name) and then the stat signature of the very inode
 * read (fstat of the same descriptor): equal to a signature taken earlier, it proves the bytes read
 * are the file's content at that earlier time. `beforeStat` is a test seam (a write racing the read).
 */
export async function readWithSignature(file: string, beforeStat?: () => Promise<void>): Promise<{ data: Buffer; signature: string }> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const data = await handle.readFile();
    await beforeStat?.();
    return { data, signature: statSignature(await handle.stat({ bigint: true })) };
  } finally {
    await handle.close();
  }
}

// By hand, not fast-glob: its stats are not BigInt, and a stat signature needs ctime in nanoseconds.
// Synchronous on purpose: a node_modules is thousands of entries, and each awaited lstat costs a
// promise and a thread-pool round trip; the sync calls walk it in a third of the CPU (the contents
// are still read a few at a time, above). It holds this thread for tens of milliseconds at most.
function walkEntry(
  abs: string,
  rel: string,
  entries: ManifestEntry[],
  signatures: Map<string, string>,
  clock: { maxCtimeNs: bigint },
): string | null {
  const stat = lstatSync(abs, { bigint: true });
  const mode = Number(stat.mode & 0o777n);
  if (stat.isSymbolicLink()) {
    const target = readlinkSync(abs);
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(rel), target));
    if (path.isAbsolute(target) || resolved === '..' || resolved.startsWith('../'))
      return `${rel} is a symlink to ${target}, outside the worktree`;
    entries.push({ path: rel, type: 'symlink', mode: 0, target });
    return null;
  }
  if (stat.isFile()) {
    entries.push({ path: rel, type: 'file', mode });
    signatures.set(rel, statSignature(stat));
    if (stat.ctimeNs > clock.maxCtimeNs) clock.maxCtimeNs = stat.ctimeNs;
    return null;
  }
  if (!stat.isDirectory()) return `${rel} is neither a file, a directory nor a symlink`;
  entries.push({ path: rel, type: 'dir', mode });
  const names = readdirSync(abs).sort();
  for (const name of names) {
    // A name from readdir holds no '/' and is never '.' or '..': joined as is, no path.join to normalise.
    const problem = walkEntry(`${abs}/${name}`, `${rel}/${name}`, entries, signatures, clock);
    if (problem) return problem;
  }
  return null;
}

export interface CompareOptions {
  /** Signatures taken when the tree was last known to match `expected`: files still showing them are not re-read. */
  trusted?: ReadonlyMap<string, string>;
  /** Filled with the signatures seen now (to trust next time, if the tree matched). */
  signatures?: Map<string, string>;
}

/** The first difference between the tree on disk and `expected`, or null when they are the same, byte for byte. */
export async function compareTree(
  root: string,
  paths: readonly string[],
  expected: readonly ManifestEntry[],
  options: CompareOptions = {},
): Promise<string | null> {
  const want = new Map(expected.map((entry) => [entry.path, entry]));
  const known = (entry: ManifestEntry, signature: string) => {
    const other = want.get(entry.path);
    if (!other || options.trusted?.get(entry.path) !== signature) return null;
    return { size: other.size ?? -1, sha256: other.sha256 ?? '' };
  };
  const actual = await walkTree(root, paths, { known, signatures: options.signatures }).catch((error: unknown) => ({
    ok: false as const,
    reason: String(error),
  }));
  if (!actual.ok) return actual.reason;
  for (const entry of actual.entries) {
    const other = want.get(entry.path);
    if (!other) return `${entry.path} is not in the manifest`;
    const difference = describeDifference(entry, other);
    if (difference) return `${entry.path}: ${difference}`;
    want.delete(entry.path);
  }
  const missing = want.keys().next();
  return missing.done ? null : `${missing.value} is missing`;
}

/** What differs between two entries for the same path, or null. */
export function describeDifference(actual: ManifestEntry, expected: ManifestEntry): string | null {
  if (actual.type !== expected.type) return `a ${actual.type}, expected a ${expected.type}`;
  if (actual.mode !== expected.mode) return `mode ${actual.mode.toString(8)}, expected ${expected.mode.toString(8)}`;
  if (actual.type === 'symlink' && actual.target !== expected.target) return `points to ${actual.target}, expected ${expected.target}`;
  if (actual.type === 'file' && (actual.size !== expected.size || actual.sha256 !== expected.sha256)) return 'content differs';
  return null;
}
