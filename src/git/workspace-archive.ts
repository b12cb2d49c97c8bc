// A worktree stored as base commit + diff + untracked files, and restored to the exact same tree.
import { createReadStream, existsSync, type Stats } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { create, extract, list, type ReadEntry } from 'tar';
import { InputError, describeError } from '../errors.js';
import { firstBlockedPath, patchPaths, type BlockedPath } from './apply-guard.js';
import { redactBinaryHunks } from './binary-hunks.js';
import { git, gitBytes, gitToFile, splitNul } from './git.js';
import { bareRepositoryIn, hasGitComponent, isRepositoryFolder } from './nested-repository.js';
import { backUpPaths } from './path-backup.js';
import { globMatcher } from '../util/glob-match.js';
import { readRegularFile } from '../util/regular-file.js';
import { excludePathspec, isUnderPrefix, normalizePrefix } from './path-prefix.js';
import type { WorkspaceSnapshot } from './snapshot.js';
import { ELENCHOS_DIR, headCommit, readStatus } from './status.js';
import { addWorktree, removeWorktree } from './worktree.js';
import { WORKSPACE_DIR_NAME, WORKSPACE_FILES } from './layout-names.js';

export { WORKSPACE_FILES };

export interface SaveWorkspaceOptions {
  /** Repository-relative path prefixes left out (the verifier's output is kept elsewhere). */
  exclude?: string[];
  /** Globs of what the app writes by design (`app.writes`): the app's data, never the agent's change. */
  skipGlobs?: readonly string[];
  /**
   * A snapshot of `cwd` taken after its last change, with the same `exclude`: its list of changed
   * paths spares a second scan of the whole tree (the scan is the only cost that grows with the
   * repository rather than with the change).
   */
  snapshot?: Pick<WorkspaceSnapshot, 'head' | 'codes'>;
  /**
   * Rewrites the files of a folder in place (the run's redaction), and renames those whose name holds a
   * secret. Untracked files are copied to a staging folder and redacted there before they are compressed:
   * once inside the gzip, no byte scan can find them, and an entry's name is stored as the staged file has it.
   */
  redactDir?: (dir: string) => Promise<unknown>;
  /**
   * Masks the secrets in a binary file's content (keeping its length): the binary hunks of diff.patch are
   * deflated, out of any scan's sight, so they are undone, masked and written again (binary-hunks.ts).
   */
  maskBinary?: (data: Buffer) => Buffer;
}

export interface SaveWorkspaceResult {
  /** Paths stored: tracked paths that differ from the base plus untracked files. */
  files: number;
  /** Bytes written to `outDir`. */
  bytes: number;
}

/** Past this many paths the patch is taken without a path list: the change is big anyway. */
const MAX_LISTED_PATHS = 2000;

/**
 * Stores the tree of `cwd` relative to `baseCommit` in `outDir`: `base.txt`, `diff.patch` (every
 * tracked or `git add`-ed path against the base, so agent commits are included) and
 * `untracked.tar.gz`. Cost follows the size of the change, not of the repository.
 */
export async function saveWorkspace(
  cwd: string,
  baseCommit: string,
  outDir: string,
  options: SaveWorkspaceOptions = {},
): Promise<SaveWorkspaceResult> {
  const exclude = [ELENCHOS_DIR, ...(options.exclude ?? [])];
  const skipGlobs = options.skipGlobs ?? [];
  const skip = globMatcher(skipGlobs);
  const left = (p: string) => isUnderPrefix(p, exclude) || skip(p);
  await mkdir(outDir, { recursive: true });
  const basePath = path.join(outDir, WORKSPACE_FILES.base);
  const diffPath = path.join(outDir, WORKSPACE_FILES.diff);
  const tarPath = path.join(outDir, WORKSPACE_FILES.untracked);
  await writeFile(basePath, `${baseCommit}\n`);

  const { head, codes } = options.snapshot ?? (await scanChanges(cwd));
  const untracked: string[] = [];
  const tracked = new Set<string>();
  for (const [p, code] of Object.entries(codes)) {
    if (left(p)) continue;
    // A nested repository's `.git` never travels (nor, below, one inside a stored folder): extracted into
    // a checkout, its config (core.fsmonitor, a hook) would run the agent's commands at the user's next
    // `git status`. Its other files do. `.GIT` and a bare layout count too (nested-repository.ts).
    if (code === '??') {
      if (!hasGitComponent(p)) untracked.push(p);
    } else tracked.add(p);
  }
  for (let bare = bareRepositoryIn(untracked); bare; bare = bareRepositoryIn(untracked)) {
    const inside = bare;
    untracked.splice(0, untracked.length, ...untracked.filter((p) => !isUnderPrefix(p, [inside])));
  }
  // A path differs between the base and the working tree only if it differs somewhere along
  // base → HEAD (agent commits) → index → working tree; git status covers the last two links.
  if (head !== baseCommit) {
    const committed = await gitBytes(['diff', '--name-only', '-z', '--no-renames', baseCommit, head], { cwd });
    for (const p of splitNul(committed)) if (!left(p)) tracked.add(p);
  }
  await writePatch(cwd, baseCommit, [...tracked].sort(), exclude, skipGlobs, diffPath);
  if (options.maskBinary) await redactBinaryHunks(diffPath, cwd, options.maskBinary);

  untracked.sort();
  if (untracked.length > 0) {
    // node-tar reads a leading `@` as "append this archive"; `./` keeps such a name a plain file.
    const entryName = (p: string) => (p.startsWith('@') ? `./${p}` : p);
    const names = untracked.map(entryName);
    if (options.redactDir) {
      const staging = path.join(outDir, '.untracked-staging');
      try {
        for (const p of untracked) {
          await mkdir(path.dirname(path.join(staging, p)), { recursive: true });
          await cp(path.join(cwd, p), path.join(staging, p), {
            recursive: true,
            verbatimSymlinks: true,
            preserveTimestamps: true,
            filter: (source) => !isRepositoryFolder(source),
          });
        }
        await options.redactDir(staging);
        // The redaction renames what a name gave away (a file named after a key): the entries are what is there now.
        const staged = (await listEntries(staging)).sort().map(entryName);
        await create({ gzip: true, portable: true, cwd: staging, file: tarPath, filter: storable(staging) }, staged);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    } else {
      await create({ gzip: true, portable: true, cwd, file: tarPath, filter: storable(cwd) }, names);
    }
  } else {
    await writeFile(tarPath, gzipSync(Buffer.alloc(1024))); // an empty archive: two zero blocks
  }

  const sizes = await Promise.all([basePath, diffPath, tarPath].map(async (f) => (await stat(f)).size));
  return { files: (await countPatchFiles(diffPath)) + untracked.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}

/** Every file and symlink under `dir` (folders only through what is in them), relative, with `/`. */
async function listEntries(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listEntries(dir, rel)));
    else out.push(rel);
  }
  return out;
}

async function scanChanges(cwd: string): Promise<{ head: string; codes: Record<string, string> }> {
  const status = await readStatus(cwd, { noRenames: true });
  const head = status.head ?? (await headCommit(cwd));
  const codes: Record<string, string> = {};
  for (const entry of status.entries) codes[entry.path] = `${entry.x}${entry.y}`;
  return { head, codes };
}

// `git diff <commit>` compares the commit with the working tree for every path the index knows;
// the flags pin down output that user config (noprefix, external diff, textconv) could change.
async function writePatch(
  cwd: string,
  base: string,
  paths: string[],
  exclude: string[],
  skipGlobs: readonly string[],
  file: string,
): Promise<void> {
  if (paths.length === 0) {
    await writeFile(file, '');
    return;
  }
  const pathspecs =
    paths.length <= MAX_LISTED_PATHS
      ? paths.map((p) => `:(top,literal)${p}`)
      : [
          ':(top)',
          ...exclude.filter((p) => normalizePrefix(p) !== '').map(excludePathspec),
          // An exception (`!path`, a file a verifier reads) has no pathspec; the window already ended an
          // attempt whose app wrote one, so none is left to store.
          ...skipGlobs.filter((g) => !g.startsWith('!')).map((g) => `:(top,exclude,glob)${g}`),
        ];
  const flags = [
    '--binary',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--no-relative',
    '--src-prefix=a/',
    '--dst-prefix=b/',
  ];
  await gitToFile(['diff', ...flags, base, '--', ...pathspecs], { cwd, file });
}

// Each file in a git patch starts with a `diff --git ` line; base85 and hunk lines never do.
async function countPatchFiles(file: string): Promise<number> {
  let count = 0;
  let tail = '\n';
  for await (const chunk of createReadStream(file, { encoding: 'latin1' })) {
    const text = tail + (chunk as string);
    count += text.split('\ndiff --git ').length - 1;
    tail = text.slice(-11); // shorter than a match: none is counted twice
  }
  return count;
}

export interface RestoreWorkspaceResult {
  base: string;
  targetDir: string;
}

/**
 * Recreates a stored workspace at `targetDir`: a detached worktree of the base commit, the patch
 * applied to its working tree, the untracked files extracted. `from` is an attempt directory
 * (holding `workspace/`) or the workspace directory itself. On failure the half-built worktree is
 * removed, so a retry starts clean.
 */
export async function restoreWorkspace(root: string, from: string, targetDir: string): Promise<RestoreWorkspaceResult> {
  const dir = existsSync(path.join(from, WORKSPACE_DIR_NAME, WORKSPACE_FILES.base)) ? path.join(from, WORKSPACE_DIR_NAME) : from;
  // A stored file is read as the input it is: a FIFO or a huge file put in its place is refused, never waited on.
  const base = (await readRegularFile(path.join(dir, WORKSPACE_FILES.base), { maxBytes: 1024 })).toString('utf8').trim();
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(base)) throw new InputError(`${path.join(dir, WORKSPACE_FILES.base)}: not a commit sha`);
  const target = path.resolve(root, targetDir);
  await addWorktree(root, target, base);
  try {
    await applyStoredWorkspace(dir, target);
  } catch (error) {
    await removeWorktree(root, target);
    throw error;
  }
  return { base, targetDir: target };
}

/**
 * Applies a stored workspace (`dir` holds base.txt, diff.patch, untracked.tar.gz) onto `target`,
 * a tree at its base commit. With `refuseExisting` (a user's checkout), nothing is written when
 * the patch does not apply cleanly or an untracked file would overwrite a file already there.
 */
export async function applyStoredWorkspace(dir: string, target: string, options: { refuseExisting?: boolean } = {}): Promise<void> {
  const diffPath = path.resolve(dir, WORKSPACE_FILES.diff);
  const tarPath = path.join(dir, WORKSPACE_FILES.untracked);
  const hasPatch = (await stat(diffPath)).size > 0;
  const hasFiles = !(await isEmptyArchive(tarPath));
  const applyArgs = ['apply', '--binary', '--whitespace=nowarn'];
  const names: string[] = [];
  if (hasFiles) await list({ file: tarPath, onReadEntry: (entry) => void names.push(entry.path) });
  const patched = hasPatch ? await patchPaths(diffPath, target) : [];
  // Stored by an older Elenchos, planted, or committed by the agent (a bare layout is plain files to git):
  // refused before anything is written (see saveWorkspace).
  const nested = [...patched, ...names].find(hasGitComponent) ?? bareRepositoryIn([...patched, ...names]);
  if (nested) {
    throw new InputError(
      `the stored change holds a git folder (${nested}): refused, since its config or hooks would run commands in ${target}; take the files by hand if you trust them`,
    );
  }
  // Every path the change writes is checked before anything is: a symlinked folder on the way (node-tar
  // never extracts through one), an ignored file where the change needs a folder (`.env` in the checkout, the
  // change adds `.env/x`), a folder that cannot be written. Found here, not half-way through.
  const blocked = await firstBlockedPath(target, [...patched, ...names]);
  if (blocked) throw new InputError(blockedMessage(target, blocked));
  if (options.refuseExisting) {
    if (hasPatch) {
      await git([...applyArgs, '--check', diffPath], { cwd: target }).catch((error: unknown) => {
        throw new InputError(
          `the stored change does not apply to ${target} (${describeError(error).replace(/^.*?: (error: )?/, '')}); take it on a branch instead (--branch), or move the file in its way`,
          { cause: error },
        );
      });
    }
    const clash = names.find((name) => existsSync(path.join(target, name)));
    if (clash)
      throw new InputError(`${path.join(target, clash)} already exists, and the stored change adds it as a new file; move it away first`);
  }
  // A user's checkout gets all of the change or none of it: what still fails half-way (a full disk, a file
  // changed under us) is rolled back from a copy of every path the change writes.
  const backup = options.refuseExisting ? await backUpPaths(target, [...patched, ...names]) : null;
  try {
    if (hasPatch) await git([...applyArgs, diffPath], { cwd: target });
    if (hasFiles) await extract({ file: tarPath, cwd: target, strict: true });
  } catch (error) {
    if (!backup) throw error;
    const left = await backup.restore();
    const why = describeError(error).replace(/\s+/g, ' ').trim();
    // Exit 3 whatever the cause (a full disk included, named in `why`): the checkout is as it was, the run's evidence intact.
    if (left.length === 0) {
      throw new InputError(
        `writing the stored change into ${target} failed (${why}); every path it had written was put back, so the checkout is as it was: fix the cause, or take the change on a branch (--branch)`,
        { cause: error },
      );
    }
    throw new InputError(
      `writing the stored change into ${target} failed (${why}), and ${left.join(', ')} could not be put back: copies of what they held are in ${backup.copies}; restore them by hand, or git checkout the tracked ones`,
      { cause: error },
    );
  }
  await backup?.discard();
}

/** One line for a path the change cannot write, naming what is in the way and the fix. */
function blockedMessage(target: string, blocked: BlockedPath): string {
  const where = path.join(target, blocked.folder);
  const fix = 'or take the change on a branch (--branch)';
  if (blocked.kind === 'symlink')
    return `the stored change adds ${blocked.name}, but ${where} is a symbolic link in your checkout; nothing was written: move the link away, ${fix}`;
  if (blocked.kind === 'file')
    return `the stored change writes ${blocked.name}, but ${where} is a file in your checkout (one git ignores, so the run never saw it); nothing was written: move it away, ${fix}`;
  return `the stored change writes ${blocked.name}, but ${where} cannot be written (${blocked.code}); nothing was written: make it writable, ${fix}`;
}

/** node-tar's filter for what is stored: nothing in a `.git` (any spelling), no folder laid out as a repository. */
function storable(cwd: string): (p: string, entry: Stats | ReadEntry) => boolean {
  return (p, entry) => {
    const folder = 'isDirectory' in entry ? entry.isDirectory() : entry.type === 'Directory';
    return !hasGitComponent(p) && !(folder && isRepositoryFolder(path.join(cwd, p)));
  };
}

// node-tar calls an archive of nothing but end blocks "unrecognized", so the empty case is ours to spot.
async function isEmptyArchive(file: string): Promise<boolean> {
  const info = await stat(file);
  if (!info.isFile()) throw new InputError(`${file} is not a file; the stored workspace was tampered with`);
  if (info.size > 4096) return false;
  return gunzipSync(await readFile(file)).every((byte) => byte === 0);
}
