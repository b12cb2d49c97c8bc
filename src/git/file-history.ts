// What git says about files' history, asked at once for what one check needs: a file as a base commit has it,
// the commits since that changed it without its companion, and the last change of each file.
import { git } from './git.js';

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
    git(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], { cwd: root }).catch(() => ''),
    git(['show', `${base}:${file}`], { cwd: root }).catch(() => null),
    git(['log', '--format=%x01%h %s', '--name-only', `${base}..HEAD`, '--', file, companion], { cwd: root }).catch((error: unknown) =>
      error instanceof Error ? error : new Error(String(error)),
    ),
  ]);
  if (!known.trim()) return null;
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
