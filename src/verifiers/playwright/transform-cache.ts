// Playwright's TypeScript transform cache, made Elenchos's own. Playwright compiles a spec (and the
// configs) with Babel and keeps the output in `PWTEST_CACHE_DIR`, by default a folder under the shared
// temp dir, keyed by the file's content and absolute path. An agent that runs as the same user knows
// both (its worktree, the locked spec), so it could plant a compiled spec that passes every test, and
// the verifier would run it. Every Playwright process Elenchos starts therefore gets a cache folder
// created by this process (mkdtemp, 0700) and reused only while it is proven untouched since the last
// Playwright process that used it ended (the inode, ctime and mtime in ns, size, mode and bytes of every
// entry; a user cannot set a ctime). Anything else: the folder is dropped and a fresh one made.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A private folder for one Playwright process: `cache` goes to PWTEST_CACHE_DIR, `root` holds what else it reads. */
export interface TransformCacheLease {
  /** The private folder (0700): `cache/` and anything a listing writes beside it (its config). */
  root: string;
  /** PWTEST_CACHE_DIR for the child. */
  cache: string;
  /** Seals the folder when the Playwright process (and all its children) has ended, for the next lease. */
  release(): Promise<void>;
  /** Removes the folder instead (a Playwright process killed while it compiled may have left half a file). */
  discard(): Promise<void>;
}

interface Idle {
  root: string;
  signature: string;
}

// Folders no Playwright process of ours uses now, each with the signature it had when its last one ended.
const idle: Idle[] = [];
// Every folder this process made, removed on exit (a killed process leaves one behind: never reused).
const made = new Set<string>();
let exitHook = false;

/**
 * A cache folder no other process could have written since Elenchos last looked: an idle one whose
 * signature still holds, else a fresh one. Two Playwright processes never share one at the same time.
 */
export async function leaseTransformCache(): Promise<TransformCacheLease> {
  let root: string | null = null;
  while (!root && idle.length > 0) {
    const candidate = idle.pop()!;
    const now = await signature(candidate.root);
    if (now !== null && now === candidate.signature) root = candidate.root;
    else await drop(candidate.root);
  }
  root ??= await fresh();
  const leased = root;
  let released = false;
  return {
    root: leased,
    cache: path.join(leased, 'cache'),
    release: async () => {
      if (released) return;
      released = true;
      const sealed = await signature(leased);
      if (sealed === null) await drop(leased);
      else idle.push({ root: leased, signature: sealed });
    },
    discard: async () => {
      if (released) return;
      released = true;
      await drop(leased);
    },
  };
}

async function fresh(): Promise<string> {
  // mkdtemp creates the folder 0700 with a name no one could have guessed before now.
  const root = await mkdtemp(path.join(tmpdir(), 'elenchos-pw-'));
  made.add(root);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  return root;
}

async function drop(dir: string): Promise<void> {
  made.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/**
 * Every entry below `root` (and `root` itself) with its inode, ctime and mtime in ns, size and mode,
 * by lstat (a symlink is an entry, never followed). Writing, replacing, renaming, linking or chmod-ing
 * anything in it changes a ctime, which only the kernel sets. Null when the folder cannot be read whole.
 */
export async function signature(root: string): Promise<string | null> {
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const full = path.join(dir, name);
      const info = await lstat(full, { bigint: true });
      hash.update(`${path.relative(root, full)}\0${stamp(info)}\n`);
      if (info.isDirectory()) await walk(full);
      // And the bytes: a ctime is only as fine as the kernel's clock tick, so a rewrite in the same tick as
      // Playwright's own write would keep it (a few compiled files: hashing them costs next to nothing).
      else if (info.isFile()) hash.update(await readFile(full)).update('\n');
    }
  };
  try {
    hash.update(`.\0${stamp(await lstat(root, { bigint: true }))}\n`);
    await walk(root);
  } catch {
    return null;
  }
  return hash.digest('hex');
}

function stamp(info: import('node:fs').BigIntStats): string {
  return `${info.ino} ${info.ctimeNs} ${info.mtimeNs} ${info.size} ${info.mode} ${info.uid}`;
}
