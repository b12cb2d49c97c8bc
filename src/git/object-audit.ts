// Without the sandbox the agent (and the app) can write `.git/objects` directly: a loose object
// renamed over an existing one, or a new pack or pack index naming an existing id, makes later checkouts of
// the base commit read its content. What was written there since a moment is found by its ctime (which no
// one can set back) and checked against its id; a forged object is removed, so git fails on it rather than
// reading it. Cost: a stat per loose object and per pack file, and hashing only what is new.
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commonGitDir, git } from './git.js';
import { LOOSE_NAME, LOOSE_REST, looseObjectId, openRegular } from './object-quarantine.js';

export interface ObjectAudit {
  /** Loose objects and pack files looked at because they changed since the moment. */
  checked: number;
  /** What did not hash to its name (`<id>` or `pack/<name>.idx`): removed from the store. */
  forged: string[];
}

// ctime is kept in whole nanoseconds but Date.now() in ms, and clocks of file systems can lag: a margin.
const SLACK_MS = 2000;

/**
 * Checks every loose object and pack index of the repository's store changed since `sinceMs`; removes the
 * forged ones. `onStart` gets the moment the walk began: a later audit from then on misses nothing.
 */
export async function auditObjectsSince(root: string, sinceMs: number, onStart?: (at: number) => void): Promise<ObjectAudit> {
  onStart?.(Date.now());
  const objects = path.join(await commonGitDir(root), 'objects');
  const since = sinceMs - SLACK_MS;
  const algorithm = (await git(['rev-parse', '--show-object-format'], { cwd: root })).trim() === 'sha256' ? 'sha256' : 'sha1';
  const audit: ObjectAudit = { checked: 0, forged: [] };
  for (const dir of await readdir(objects)) {
    if (!LOOSE_NAME.test(dir)) continue;
    for (const name of readdirOrNone(path.join(objects, dir))) {
      if (!LOOSE_REST.test(name)) continue;
      const file = path.join(objects, dir, name);
      // A stat per loose object, synchronous: thousands of them cost milliseconds, not a trip each to the thread pool.
      if (!((statSync(file, { throwIfNoEntry: false })?.ctimeMs ?? 0) >= since)) continue;
      audit.checked++;
      const handle = await openRegular(file);
      const id = handle ? await looseObjectId(handle, algorithm).finally(() => handle.close()) : null;
      if (id === `${dir}${name}`) continue;
      audit.forged.push(`${dir}${name}`);
      await unlink(file).catch(() => undefined);
    }
  }
  await auditPacks(root, path.join(objects, 'pack'), since, audit);
  return audit;
}

/** A pack or index changed since the moment: its index must be the one git builds from the pack's bytes. */
async function auditPacks(root: string, packs: string, since: number, audit: ObjectAudit): Promise<void> {
  const names = await readdir(packs).catch(() => [] as string[]);
  const stems = new Set<string>();
  for (const name of names) {
    const match = /^(pack-[0-9a-f]+)\.(pack|idx)$/.exec(name);
    if (!match) continue;
    const changed = await stat(path.join(packs, name)).then(
      (s) => s.ctimeMs >= since,
      () => false,
    );
    if (changed) stems.add(match[1]!);
  }
  if (stems.size === 0) return;
  const scratch = await mkdtemp(path.join(tmpdir(), 'elenchos-idx-'));
  try {
    for (const stem of stems) {
      const idx = path.join(packs, `${stem}.idx`);
      if (!names.includes(`${stem}.idx`) || !names.includes(`${stem}.pack`)) continue; // no index: git does not use it
      audit.checked++;
      const rebuilt = path.join(scratch, `${stem}.idx`);
      const ok = await git(['index-pack', '-o', rebuilt, path.join(packs, `${stem}.pack`)], { cwd: root }).then(
        () => true,
        () => false,
      );
      const same = ok && Buffer.compare(await readFile(idx), await readFile(rebuilt)) === 0;
      if (same) continue;
      audit.forged.push(`pack/${stem}.idx`);
      // Without its index git never reads the pack: what it holds is no longer believed.
      await unlink(idx).catch(() => undefined);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function readdirOrNone(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
