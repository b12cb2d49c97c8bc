// The locked files, watched through the verifier window and judged by content. A dev server may rewrite
// a file the verifier reads with the same bytes as it starts (SvelteKit's `.svelte-kit/tsconfig.json`,
// Next.js's `tsconfig.json`): that is no change. A file shown to the verifier with other bytes and put
// back before the window closes is: every time the kernel reports a write to a locked file, its content
// is looked at there and then, and a look that differs from the lock is kept.
import { lstatSync, watch, type FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { TEST_FILE_LIMIT, readRegularFile } from '../../util/regular-file.js';
import { sha256 } from '../../util/sha256.js';
import type { LockedFile } from './contract-lock.js';

const EMPTY_SHA256 = sha256(Buffer.alloc(0));

/** What the watch saw: the locked files that held other bytes at some look, and whether it could look at all. */
export interface LockedLooks {
  /** Repo-relative locked paths seen with other content (or not as a readable file) during the window. */
  differed: Set<string>;
  /** Why the watch could not see every write (then a file whose stamp moved counts as changed), or null. */
  blind: string | null;
  /** Each locked file's kind and permission bits when the watch began (a chmod is a change too). */
  modes: Map<string, string>;
}

export interface LockedWatch {
  /** Stops watching once every look taken so far is done (once; later calls give the same answer). */
  close(): Promise<LockedLooks>;
}

/** The content a locked file must have: its byte hash (the task's `task` entry, never the canonical one). */
function expectedHashes(locked: readonly LockedFile[]): Map<string, string> {
  const expected = new Map<string, string>();
  for (const file of locked) if (file.role !== 'task-canonical') expected.set(file.path, file.sha256);
  return expected;
}

/** Starts watching the folder of every locked file under `root`; looks at a locked file on each event. */
export function watchLocked(
  locked: readonly LockedFile[],
  root: string,
  /** Called after each look (tests wait on it instead of sleeping). */
  onLook?: (file: string, same: boolean) => void,
): LockedWatch {
  const expected = expectedHashes(locked);
  const differed = new Set<string>();
  const looks: Promise<void>[] = [];
  const watchers: FSWatcher[] = [];
  let blind: string | null = null;
  const modes = new Map([...expected.keys()].map((file) => [file, modeOfSync(path.join(root, file))]));
  const look = (file: string) => {
    looks.push(
      Promise.all([contentOf(root, file), modeOf(path.join(root, file))]).then(([hash, mode]) => {
        const same = hash === expected.get(file) && mode === modes.get(file);
        // Empty for a moment: a writer that truncates in place before it writes (writeFileSync) was looked at
        // between the two; its write raises the next event and the next look. Left empty, the end judges it.
        const midWrite = hash === EMPTY_SHA256 && mode === modes.get(file);
        if (!same && !midWrite) differed.add(file);
        onLook?.(file, same);
      }),
    );
  };
  const byFolder = new Map<string, string[]>();
  for (const file of expected.keys()) {
    const folder = path.posix.dirname(file);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  for (const [folder, files] of byFolder) {
    const names = new Map(files.map((f) => [path.posix.basename(f), f]));
    try {
      const w = watch(path.join(root, folder), { persistent: false }, (_type, name) => {
        // A name-less event (the kernel did not say which): every locked file of the folder is looked at.
        const hit = name === null ? files : [names.get(name.toString())].filter((f): f is string => f !== undefined);
        for (const file of hit) look(file);
      });
      w.on('error', (error) => {
        blind ??= `${folder}: ${error.message}`;
      });
      watchers.push(w);
    } catch (error) {
      blind ??= `${folder}: ${(error as Error).message}`;
    }
  }
  let closed: Promise<LockedLooks> | null = null;
  return {
    close() {
      closed ??= (async () => {
        for (const w of watchers) w.close();
        while (looks.length > 0) await Promise.all(looks.splice(0));
        return { differed, blind, modes };
      })();
      return closed;
    },
  };
}

/** sha256 of a locked file's bytes, or a word that matches no hash when it is not a readable regular file. */
async function contentOf(root: string, file: string): Promise<string> {
  return readRegularFile(path.join(root, file), { label: file, maxBytes: TEST_FILE_LIMIT }).then(sha256, () => 'unreadable');
}

/**
 * Of the locked files whose stamp moved in the window (`touched`), those that changed by content: seen
 * with other bytes at a look, holding other bytes now, or any of them when the watch was blind. A file
 * rewritten with the bytes it had is left out: it did not change.
 */
export async function rewrittenByContent(
  locked: readonly LockedFile[],
  root: string,
  touched: readonly string[],
  looks: LockedLooks | null,
): Promise<string[]> {
  if (touched.length === 0) return [];
  if (!looks || looks.blind) return [...touched];
  const expected = expectedHashes(locked);
  const out: string[] = [];
  for (const file of touched) {
    const now = [await contentOf(root, file), await modeOf(path.join(root, file))];
    if (looks.differed.has(file) || now[0] !== expected.get(file) || now[1] !== looks.modes.get(file)) out.push(file);
  }
  return out;
}

/** A path's kind and permission bits (`file:644`), or "missing". */
function modeOfSync(file: string): string {
  try {
    return describeMode(lstatSync(file).mode);
  } catch {
    return 'missing';
  }
}

async function modeOf(file: string): Promise<string> {
  return lstat(file).then(
    (info) => describeMode(info.mode),
    () => 'missing',
  );
}

function describeMode(mode: number): string {
  return `${(mode & 0o170000).toString(8)}:${(mode & 0o7777).toString(8)}`;
}
