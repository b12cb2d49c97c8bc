// The verifier window, watched: a write that is undone before the window closes leaves the before/after
// snapshots equal, but not the kernel's own record of it (inotify, through Node's fs.watch).
//
// Why not @parcel/watcher or chokidar: both fold events before we see them. Parcel drops a file created
// and deleted within its 50 ms batch; chokidar re-reads the directory after an event and so misses a file
// that is already gone. Either lets a file appear, be served and vanish unseen. Since any event at all
// ends the attempt, we need no recursive bookkeeping: one raw watch per directory that exists when the
// window opens; a directory created later is itself an event in its parent. The one exception: a folder
// the verifier or the app may create on the way to what it owns (`folders`) is no write, so it is
// watched as it appears, and what it already holds by then counts.
import { watch, type FSWatcher } from 'node:fs';
import { lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { git, splitNul } from './git.js';
import { globMatcher } from '../util/glob-match.js';
import { sha256 } from '../util/sha256.js';
import { isUnderPrefix, normalizePrefix } from './path-prefix.js';
import { ELENCHOS_DIR } from './status.js';
import { digestPath } from './path-digest.js';
import { RUNS_DIR_NAME, WINDOW_MARKER_DIR_NAME, WORKSPACES_DIR_NAME } from './layout-names.js';

const EMPTY_SHA256 = sha256(Buffer.alloc(0));

/** What the watcher saw: repo-relative paths written (created, changed, deleted), or why it cannot tell. */
export type WindowReport = (
  | { ok: true; written: string[]; directories: number }
  /** The watcher failed or could not confirm it saw everything: the window is unprovable, never stable. */
  | { ok: false; problem: string; written: string[]; directories: number }
) & {
  /** What each written path held at every look, one taken as its event arrived (see `digestPath`). */
  looks?: Record<string, string[]>;
};

export interface WindowWatch {
  /** Closes the window: waits until every earlier event has arrived, stops watching and reports. */
  close(): Promise<WindowReport>;
}

/** The one call of fs.watch we make, injectable so tests can play a watcher that fails. */
export type WatchDirectory = (directory: string, onEvent: (filename: string | null) => void) => FSWatcher;

export interface WatchOptions {
  /** Repository-relative prefixes left out (the verifier's own output folders, as in the snapshot). */
  exclude?: string[];
  /** Paths the app writes by design (`app.writes` and the built-in list), left out as in the snapshot. */
  skip?: (repoPath: string) => boolean;
  // Folders the verifier or the app may create on their way to what they own (`.testmuai` on the way to
  // `.testmuai/evidence/`, `data` for `data/db.json`; a glob starting with `**/` names one at any depth:
  // `**/log` for `**/log/development.log`): their creation is no write, and they are watched from the
  // moment they appear, so what else lands in them still counts.
  folders?: string[];
  /** How long an event of our own may take to come back before the watcher is deemed blind. */
  confirmMs?: number;
  watchDirectory?: WatchDirectory;
}

const MAX_PATHS = 10_000;
const watchRaw: WatchDirectory = (directory, onEvent) => watch(directory, { persistent: false }, (_type, filename) => onEvent(filename));

/**
 * Starts watching every directory of `cwd` and resolves once the watch has proved it sees (a marker
 * file of our own, under `.elenchos/`, came back as an event). Git-ignored folders are not watched:
 * they are outside what the snapshot compares and what is stored (see docs/verification.md). `.git`
 * is not watched: a moved HEAD is the snapshot's to see, and checking out other files writes the tree.
 */
export async function watchWindow(cwd: string, options: WatchOptions = {}): Promise<WindowWatch> {
  const watch = new DirectoryWatch(cwd, options);
  await mkdir(watch.markerDir, { recursive: true });
  const directories = await listDirectories(cwd);
  try {
    for (const dir of directories) watch.add(dir);
  } catch (error) {
    watch.stop(); // ENOSPC here is the inotify watch limit (fs.inotify.max_user_watches)
    throw error;
  }
  if (!(await watch.confirm())) {
    watch.stop();
    throw new Error(`the filesystem watch on ${cwd} did not report a test write within ${watch.confirmMs} ms`);
  }
  return { close: () => watch.close(directories.length) };
}

/** One window's watch: a raw watcher per directory, the paths they reported, and the proof they saw everything. */
class DirectoryWatch {
  readonly exclude: string[];
  readonly skip: (repoPath: string) => boolean;
  /** Folders whose creation is no write: watched as they appear (WatchOptions.folders, and those on the way to `exclude`). */
  readonly folders: (rel: string) => boolean;
  readonly confirmMs: number;
  readonly markerDir: string;
  private readonly watchDirectory: WatchDirectory;
  private readonly seen = new Set<string>();
  /** Each written path's content as it was looked at, once per event (a same-bytes rewrite is no change). */
  private readonly looks = new Map<string, Set<string>>();
  private readonly looking: Promise<void>[] = [];
  /** Marker files of our own, each waiting for its event. */
  private readonly waiting = new Map<string, () => void>();
  private readonly watchers: FSWatcher[] = [];
  private readonly watched = new Set<string>();
  /** Folders being added as they appear. */
  private readonly pending: Promise<void>[] = [];
  private overflow = false;
  private failure: string | null = null;
  private closed = false;
  private markers = 0;

  constructor(
    private readonly cwd: string,
    options: WatchOptions,
  ) {
    this.exclude = [ELENCHOS_DIR, ...(options.exclude ?? [])];
    this.skip = options.skip ?? (() => false);
    this.folders = folderMatcher([...(options.folders ?? []), ...this.exclude.flatMap(parentFolders)]);
    this.confirmMs = options.confirmMs ?? 10_000;
    this.watchDirectory = options.watchDirectory ?? watchRaw;
    this.markerDir = path.join(cwd, ELENCHOS_DIR, WINDOW_MARKER_DIR_NAME);
  }

  /** Watches one directory (repo-relative, '' for the root), once. */
  add(dir: string): void {
    if (this.closed || this.watched.has(dir)) return;
    this.watched.add(dir);
    // A name-less event (the kernel did not say) counts as a write to the directory itself.
    const w = this.watchDirectory(path.join(this.cwd, dir), (name) =>
      this.record(name === null ? dir || '.' : dir ? `${dir}/${name}` : name),
    );
    w.on('error', (error) => {
      this.failure ??= `${dir || '.'}: ${error.message}`;
    });
    this.watchers.push(w);
  }

  stop(): void {
    for (const w of this.watchers) w.close();
  }

  private record(rel: string): void {
    this.waiting.get(rel)?.();
    if (isUnderPrefix(rel, [ELENCHOS_DIR])) return;
    if (this.folders(rel) && !this.watched.has(rel)) this.follow(rel);
    if (this.seen.size < MAX_PATHS) this.seen.add(rel);
    else this.overflow = true;
    if (!this.closed && this.seen.has(rel) && !isUnderPrefix(rel, this.exclude) && !this.skip(rel)) this.look(rel);
  }

  /** What `rel` holds now, kept with its earlier looks. */
  private look(rel: string): void {
    this.looking.push(
      digestPath(path.join(this.cwd, rel)).then(
        (digest) => {
          const seen = this.looks.get(rel) ?? new Set<string>();
          seen.add(digest);
          this.looks.set(rel, seen);
        },
        () => void this.looks.set(rel, new Set([...(this.looks.get(rel) ?? []), 'unreadable'])),
      ),
    );
  }

  /** A folder the verifier or the app may create is watched as it appears (with what it already holds). */
  private follow(rel: string): void {
    const { cwd, exclude, skip } = this;
    const add = async () => {
      if (!(await lstat(path.join(cwd, rel)).catch(() => null))?.isDirectory()) return;
      const inside = await fg('**', { cwd: path.join(cwd, rel), onlyDirectories: true, dot: true, followSymbolicLinks: false });
      for (const sub of ['', ...inside.sort()]) {
        const dir = sub ? `${rel}/${sub}` : rel;
        if (!isUnderPrefix(dir, exclude) && !skip(dir)) this.add(dir);
      }
      // What landed in it before its watch began is a write all the same.
      const files = await fg('**', { cwd: path.join(cwd, rel), onlyFiles: false, dot: true, followSymbolicLinks: false });
      // (What the owner writes there is not listed: a `log/` of thousands of files would reach MAX_PATHS.)
      for (const file of files.map((f) => `${rel}/${f}`)) if (!isUnderPrefix(file, exclude) && !skip(file)) this.record(file);
    };
    this.pending.push(
      add().catch((error: Error) => {
        this.failure ??= `${rel}: ${error.message}`;
      }),
    );
  }

  /** One inotify instance delivers its events in order: once our marker arrives, every earlier write has. */
  async confirm(): Promise<boolean> {
    const name = `${ELENCHOS_DIR}${WINDOW_MARKER_DIR_NAME}/marker-${process.pid}-${++this.markers}`;
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.confirmMs);
      this.waiting.set(name, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    await writeFile(path.join(this.cwd, name), '');
    const ok = await arrived;
    this.waiting.delete(name);
    return ok;
  }

  /** Closes the window once every earlier event has arrived; `directories`: how many were watched from the start. */
  async close(directories: number): Promise<WindowReport> {
    await Promise.all(this.pending);
    const confirmed = await this.confirm();
    // Folders that appeared while the window was being confirmed are still listed, then nothing more.
    while (this.pending.length > 0) await Promise.all(this.pending.splice(0));
    this.closed = true;
    this.stop();
    while (this.looking.length > 0) await Promise.all(this.looking.splice(0));
    await rm(this.markerDir, { recursive: true, force: true });
    const own = await dropOwnOutput(this.cwd, [...this.seen], this.exclude, this.folders);
    const written = await dropIgnored(
      this.cwd,
      own.filter((p) => !this.skip(p)),
    );
    const looks = Object.fromEntries(written.map((p) => [p, [...(this.looks.get(p) ?? [])]]));
    if (this.failure) return { ok: false, problem: `the filesystem watch failed: ${this.failure}`, written, directories, looks };
    if (!confirmed)
      return {
        ok: false,
        problem: `the filesystem watch did not confirm its last events within ${this.confirmMs} ms`,
        written,
        directories,
        looks,
      };
    // Past the cap a path may be missing from the list, never from the verdict: something was written.
    if (this.overflow && written.length === 0)
      return { ok: false, problem: `the filesystem watch saw more than ${MAX_PATHS} paths`, written, directories, looks };
    return { ok: true, written, directories, looks };
  }
}

/** Every directory to watch, repo-relative ('' for the root): all but `.git`, our runs and git-ignored folders. */
async function listDirectories(cwd: string): Promise<string[]> {
  const out = await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'], { cwd });
  const ignored = splitNul(out)
    .filter((p) => p.endsWith('/') && p !== ELENCHOS_DIR)
    .map((p) => fg.escapePath(p.slice(0, -1)));
  // With --in-place the checkout's own .elenchos/ holds the evidence being written: not watched.
  const skip = ['.git', `${ELENCHOS_DIR}${RUNS_DIR_NAME}`, `${ELENCHOS_DIR}${WORKSPACES_DIR_NAME}`, ...ignored].flatMap((p) => [
    p,
    `${p}/**`,
  ]);
  const found = await fg('**', { cwd, onlyDirectories: true, dot: true, followSymbolicLinks: false, ignore: skip });
  return ['', ...found.sort()];
}

/**
 * Creates the folders on the way to the verifier's output folders (Kane's `.testmuai/` for
 * `.testmuai/evidence/`) before the window opens: watched from the start, a file put there and removed
 * again in a moment (a `.testmuai/context.md` the verifier would read) is still seen. Git lists no empty
 * folder, so nothing else notices them.
 */
export async function createOutputParents(cwd: string, exclude: readonly string[]): Promise<void> {
  for (const prefix of exclude) {
    const parents = parentFolders(normalizePrefix(prefix));
    // A symlink there (`.testmuai -> an ignored folder`) would take what lands in it out of the watch.
    for (const parent of parents) {
      if ((await lstat(path.join(cwd, parent)).catch(() => null))?.isSymbolicLink()) {
        throw new Error(`${parent} is a symbolic link: the verifier's output folder cannot be watched`);
      }
    }
    const deepest = parents.at(-1);
    if (deepest) await mkdir(path.join(cwd, deepest), { recursive: true });
  }
}

// Plain paths compared as they are (a Kane folder may hold `[` or `*`); only a `**/…` one is a glob.
/** Whether a path is one of `folders`. */
function folderMatcher(folders: readonly string[]): (rel: string) => boolean {
  const plain = new Set(folders.filter((f) => !f.startsWith('**/')));
  const anyDepth = globMatcher(folders.filter((f) => f.startsWith('**/')));
  return (rel) => plain.has(rel) || anyDepth(rel);
}

/** `a/b/c/` → `a`, `a/b` (the folders on the way to an excluded one). */
function parentFolders(prefix: string): string[] {
  const parts = prefix.replace(/\/+$/, '').split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Drops what the verifier itself writes. The watch names a folder when it is created, which the
 * snapshot never lists alone: a path that is one of the excluded folders, or a folder on the way to one
 * (`folders`), counts only while it is a folder; what lands inside such a folder is watched and counts.
 */
async function dropOwnOutput(cwd: string, paths: string[], exclude: string[], folders: (rel: string) => boolean): Promise<string[]> {
  const kept: string[] = [];
  for (const p of paths) {
    if (isUnderPrefix(p, exclude)) continue;
    const folderLike = isUnderPrefix(`${p}/-`, exclude) || folders(p);
    if (folderLike && (await lstat(path.join(cwd, p)).catch(() => null))?.isDirectory()) continue;
    kept.push(p);
  }
  return kept;
}

/** The paths git does not ignore (the ones the snapshot compares and the archive stores). */
async function dropIgnored(cwd: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  // check-ignore exits 1 when none is ignored: then every path counts, which is the safe side.
  const out = await git(['check-ignore', '--stdin', '-z'], { cwd, input: `${paths.join('\0')}\0` }).catch(() => '');
  const ignored = new Set(splitNul(out));
  return paths.filter((p) => !ignored.has(p)).sort();
}

/**
 * The written paths that changed by content: a path dropped only when it existed before the window
 * (`before(p)`, a `digestPath` string, never "deleted") and every look at it, and what it holds now, was
 * exactly that (bytes, mode, link target). A file that appeared and went, was seen with other bytes, or
 * was not looked at, stays written: a same-bytes rewrite is no change, a swap that was seen is.
 */
export async function writtenByContent(
  cwd: string,
  report: WindowReport,
  before: (repoPath: string) => Promise<string>,
): Promise<string[]> {
  const kept: string[] = [];
  for (const p of report.written) {
    const looks = report.looks?.[p] ?? [];
    if (await onlyIgnoredInside(cwd, p, looks)) continue;
    const was = looks.length > 0 ? await before(p) : 'deleted';
    const now = was === 'deleted' ? '' : await digestPath(path.join(cwd, p)).catch(() => 'unreadable');
    // An empty look of a file that ends as it was is a writer that truncates in place before it writes, seen between the two.
    const midWrite = was.startsWith('file:') ? `${was.slice(0, was.lastIndexOf(':'))}:${EMPTY_SHA256}` : was;
    const same = was !== 'deleted' && !was.startsWith('dir:') && now === was && looks.every((look) => look === was || look === midWrite);
    if (!same) kept.push(p);
  }
  return kept;
}

/**
 * A folder created in the window that holds nothing git would show (Angular's `.angular/`, made for the
 * ignored `.angular/cache/`): git has no folders, only files, and none of its files is a change. What is
 * in it that git does show is a written path of its own; a folder that went again stays written.
 */
async function onlyIgnoredInside(cwd: string, p: string, looks: readonly string[]): Promise<boolean> {
  if (looks.length === 0 || !looks.every((look) => look.startsWith('dir:'))) return false;
  const info = await lstat(path.join(cwd, p)).catch(() => null);
  if (!info?.isDirectory()) return false;
  const tracked = await git(['ls-files', '-z', '--', p], { cwd }).catch(() => null);
  if (tracked !== '') return false; // a folder git tracks files in existed before: its name-less event stays a write
  const shown = await git(['ls-files', '-z', '--others', '--exclude-standard', '--', p], { cwd }).catch(() => null);
  return shown === '';
}
