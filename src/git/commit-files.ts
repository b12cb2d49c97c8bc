// Files as a commit holds them (not as the checkout has them): what `attest verify` compares an
// attestation's digests and task set with; and their history, asked at once for what one check needs (a
// file as a base commit has it, the commits since that changed it without its companion, each file's last change).
import { git, gitBytes, splitNul } from './git.js';

/** The full commit id `rev` names in the repository at `cwd`, or null when it names no commit. */
export async function resolveCommit(cwd: string, rev: string): Promise<string | null> {
  // `--end-of-options`: a revision that starts with a dash is a revision, never a flag of rev-parse.
  const out = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd }).catch(() => null);
  const id = out?.trim() ?? '';
  return /^[0-9a-f]{40,64}$/.test(id) ? id : null;
}

/** Every regular file (and symlink) path in `commit`'s tree, repository-relative with `/`. */
export async function listCommitFiles(cwd: string, commit: string): Promise<string[]> {
  const out = await git(['ls-tree', '-r', '-z', '--full-tree', commit], { cwd });
  // `<mode> <type> <object>\t<path>`: submodules (type commit) hold no file of this repository.
  return splitNul(out)
    .map((entry) => /^\d+ blob [0-9a-f]+\t(.*)$/s.exec(entry)?.[1])
    .filter((p): p is string => p !== undefined);
}

/**
 * The bytes of each path in `commit` (null where the commit has no file there), read with one
 * `git cat-file --batch`: raw bytes, so a file that is not valid UTF-8 hashes as it is.
 */
export async function readCommitFiles(cwd: string, commit: string, paths: readonly string[]): Promise<Map<string, Buffer | null>> {
  const found = new Map<string, Buffer | null>();
  // The batch protocol is one object name per line: a path with a newline cannot be asked (nor be ours).
  const asked = paths.filter((p) => !/[\n\r]/.test(p));
  for (const p of paths) if (!asked.includes(p)) found.set(p, null);
  if (asked.length === 0) return found;
  const out = await gitBytes(['cat-file', '--batch'], { cwd, input: asked.map((p) => `${commit}:${p}\n`).join('') });
  let at = 0;
  for (const p of asked) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) throw new Error(`git cat-file --batch: no answer for ${p}`);
    const header = out.subarray(at, end).toString('utf8');
    at = end + 1;
    // `<object> <type> <size>` then the content and a newline; `<name> missing` (or ambiguous) alone.
    const match = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!match) {
      found.set(p, null);
      continue;
    }
    const size = Number(match[2]);
    found.set(p, match[1] === 'blob' ? Buffer.from(out.subarray(at, at + size)) : null);
    at += size + 1;
  }
  return found;
}

/** A file's history since `base` (`--lock-base`), beside the file that must change with it. */
export interface HistorySince {
  /** The file's text in `base`, or null when the base has none. */
  atBase: string | null;
  /** `commit abc1234 "subject"` of each commit in `base..HEAD` that changed the file but not its companion. */
  changedAlone: string[];
}

/** `file`'s history since `base`, with `companion` (a lock and its task); null when `base` names no commit. */
export async function historySince(root: string, base: string, file: string, companion: string): Promise<HistorySince | null> {
  const [known, atBase, log] = await Promise.all([
    resolveCommit(root, base),
    git(['show', `${base}:${file}`], { cwd: root }).catch(() => null),
    git(['log', '--format=%x01%h %s', '--name-only', `${base}..HEAD`, '--', file, companion], { cwd: root }).catch((error: unknown) =>
      error instanceof Error ? error : new Error(String(error)),
    ),
  ]);
  if (!known) return null;
  if (log instanceof Error) throw log; // a commit whose history git cannot read: not something to pass over
  const changedAlone: string[] = [];
  for (const block of log.split('\x01').filter((b) => b.trim() !== '')) {
    const [header, ...files] = block.split('\n').filter((l) => l !== '');
    if (files.includes(file) && !files.includes(companion)) changedAlone.push(describeCommit(header ?? ''));
  }
  return { atBase, changedAlone };
}

/**
 * For each file: `commit abc1234 "subject"` of the last commit that changed it, `uncommitted change` when the
 * checkout differs (`dirty`: its uncommitted paths, as the caller read them), or `not committed`.
 */
export async function lastChanges(root: string, files: readonly string[], dirty: ReadonlySet<string>): Promise<Map<string, string>> {
  const wanted = [...new Set(files)];
  const logs = await Promise.all(
    wanted.map((file) => (dirty.has(file) ? null : git(['log', '-1', '--format=%h %s', '--', file], { cwd: root }).catch(() => ''))),
  );
  return new Map(
    wanted.map((file, i) => {
      const log = logs[i];
      if (log === null || log === undefined) return [file, 'uncommitted change'];
      return [file, log.trim() ? describeCommit(log.trim()) : 'not committed'];
    }),
  );
}

/** `abc1234 subject words` (git's `%h %s`) as `commit abc1234 "subject words"`. */
function describeCommit(line: string): string {
  const [hash, ...subject] = line.split(' ');
  return `commit ${hash} "${subject.join(' ')}"`;
}
