// Can `git status` be believed about a checkout? `verify --in-place` checks the committed code in the
// checkout itself, and "clean" is all it asks of git. Our own git calls already switch off what lets a
// repository answer from a cache (core.fsmonitor, core.untrackedCache, core.ignoreStat: SAFE_GIT_CONFIG);
// what is left is state in the checkout that tells git not to look, or to look through a program:
// - index flags: skip-worktree (also what a sparse checkout sets) and assume-unchanged;
// - an index whose stat data claims the committed content for an edited file (written by hand, or left by a
//   smudge filter): compared here against a fresh index of HEAD, which has no stat data to trust;
// - a filter driver (`filter.<x>.clean`) a path's attributes name: git status sees the file as the program
//   cleans it, not as it is;
// - ignored files that no committed .gitignore ignores: hidden by `.git/info/exclude`, core.excludesFile,
//   or a .gitignore the commit does not have (one that ignores itself hides its whole folder).
// Each is refused: in a fresh worktree (verify without --in-place) none of them exists.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git, gitBytes, splitNul } from './git.js';
import { isUnderPrefix } from './path-prefix.js';
import { ELENCHOS_DIR, readStatus } from './status.js';

// git-lfs's own commands: its clean filter turns the file into the pointer the commit holds, nothing else.
const LFS_FILTER = /^git-lfs (clean|smudge) -- %f$|^git-lfs filter-process$/;
const FIX = 'verify in a fresh worktree (drop --in-place), or undo it';

/** One line per way the checkout at `root` may differ from HEAD without `git status` saying so; empty when none. */
export async function hiddenFromStatus(root: string): Promise<string[]> {
  const tracked = splitNul(await gitBytes(['ls-files', '-z'], { cwd: root }));
  const flagged = await flaggedEntries(root);
  return [
    ...flagged.map((f) => f.problem),
    ...(await staleIndex(root, new Set(flagged.map((f) => f.file)))),
    ...(await filteredPaths(root, tracked)),
    ...(await hiddenUntracked(root, new Set(tracked))),
  ];
}

/** Index entries git status does not look at (`git ls-files -v`: S skip-worktree, lowercase assume-unchanged). */
async function flaggedEntries(root: string): Promise<{ file: string; problem: string }[]> {
  const listed = splitNul(await gitBytes(['ls-files', '-v', '-z'], { cwd: root }));
  return listed.flatMap((entry) => {
    const [tag, file] = [entry[0] ?? '', entry.slice(2)];
    const flags = [...(tag.toUpperCase() === 'S' ? ['skip-worktree'] : []), ...(tag !== tag.toUpperCase() ? ['assume-unchanged'] : [])];
    if (flags.length === 0) return [];
    const undo = flags.map((flag) => `git update-index --no-${flag} -- ${file}`).join('; ');
    return [
      { file, problem: `${file} is marked ${flags.join(' and ')} in the index, so git status does not look at it; run ${undo}, or ${FIX}` },
    ];
  });
}

/** Tracked paths that differ from HEAD although the checkout's own index says they do not. */
async function staleIndex(root: string, flagged: ReadonlySet<string>): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'elenchos-index-'));
  try {
    const indexFile = path.join(dir, 'index');
    await gitBytes(['read-tree', 'HEAD'], { cwd: root, indexFile });
    // With no stat data to trust, git reads every tracked file: what differs from HEAD is what really differs.
    const fresh = (await readStatus(root, { noRenames: true, indexFile })).entries.filter((e) => e.x !== '?' && e.x !== '!');
    const own = new Set((await readStatus(root, { noRenames: true })).entries.map((e) => e.path));
    return fresh
      .filter((e) => !own.has(e.path) && !flagged.has(e.path) && !isUnderPrefix(e.path, [ELENCHOS_DIR]))
      .map(
        (e) =>
          `${e.path} differs from HEAD, but the checkout's index claims it does not (its stat data was written to match); run git update-index --really-refresh, or ${FIX}`,
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Tracked paths read through a configured filter driver (git-lfs's own excepted). */
async function filteredPaths(root: string, tracked: readonly string[]): Promise<string[]> {
  if (tracked.length === 0) return [];
  const out = splitNul(await gitBytes(['check-attr', '-z', '--stdin', 'filter'], { cwd: root, input: `${tracked.join('\0')}\0` }));
  const byDriver = new Map<string, string>();
  for (let i = 0; i + 2 < out.length; i += 3) {
    const [file, , value] = [out[i]!, out[i + 1], out[i + 2]!];
    if (!['unspecified', 'unset', 'set'].includes(value) && !byDriver.has(value)) byDriver.set(value, file);
  }
  const problems: string[] = [];
  for (const [driver, file] of byDriver) {
    const escaped = driver.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const config = await git(['config', '--get-regexp', `^filter\\.${escaped}\\.(clean|smudge|process)$`], { cwd: root }).catch(() => '');
    const commands = config
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(line.indexOf(' ') + 1));
    if (commands.length === 0 || commands.every((command) => LFS_FILTER.test(command))) continue;
    problems.push(
      `${file} (and every path whose attributes say filter=${driver}) is read through the filter driver "${driver}" (${commands[0]}), so git status compares what that program prints, not the file; remove the filter, or ${FIX}`,
    );
  }
  return problems;
}

/**
 * Ignored paths that no committed .gitignore ignores: hidden from git status by `.git/info/exclude`,
 * core.excludesFile, or a .gitignore the commit does not have (one that ignores itself hides its folder).
 */
async function hiddenUntracked(root: string, tracked: ReadonlySet<string>): Promise<string[]> {
  const args = ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'];
  const ignored = splitNul(await gitBytes(args, { cwd: root })).filter((p) => !isUnderPrefix(p, [ELENCHOS_DIR]));
  if (ignored.length === 0) return [];
  // `-v`: the rule that decided, as `<source> <line> <pattern> <path>` (check-ignore exits 1 when none is ignored).
  const input = `${ignored.join('\0')}\0`;
  const out = splitNul(await gitBytes(['check-ignore', '-z', '-v', '--stdin'], { cwd: root, input }).catch(() => Buffer.alloc(0)));
  const problems: string[] = [];
  for (let i = 0; i + 3 < out.length; i += 4) {
    const [source, , , file] = [out[i]!, out[i + 1], out[i + 2], out[i + 3]!];
    if (tracked.has(source)) continue;
    const where =
      source === ''
        ? 'a rule git could not name'
        : path.isAbsolute(source) || source.startsWith('.git/')
          ? source
          : `${source}, which the commit does not have`;
    problems.push(
      `${file} is ignored by ${where}, not by a committed .gitignore, so git status does not show it; delete it, or ignore it in the commit's .gitignore`,
    );
  }
  return problems;
}
