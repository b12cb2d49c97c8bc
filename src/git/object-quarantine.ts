// A sandboxed process never writes the repository's object store: a loose object renamed over
// an existing one (same id, other content) made every later checkout of the base commit read the agent's
// page. New objects go to a quarantine folder instead (git's own idea: receive-pack's `objects/incoming-*`),
// and only objects whose content hashes to their name are copied into the store, never over one it has.
//
// A run's objects are its own until it ends: checked objects go to the run's held folder, not the store,
// and every quarantine and held folder lives under `objects/elenchos-private/`, which each sandbox sees as
// an empty tmpfs with only its own run's folders bound back. So a best-of candidate never sees what a rival
// staged or committed, during its turn or after it (docs/best-of.md#what-one-candidate-can-see); Elenchos's
// own git calls see every held folder (git.ts: shareObjects), and the run's end moves its objects into the
// store (a best-of run's end, for its candidates).
import { createHash, randomBytes } from 'node:crypto';
import { constants, mkdirSync } from 'node:fs';
import { link, mkdir, mkdtemp, open, readdir, rm, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createInflate } from 'node:zlib';
import { git, repositoryStore, shareObjects, unshareObjects } from './git.js';

/** Every run's quarantines and held objects, inside the store (a rename stays on one filesystem). */
export const PRIVATE_OBJECTS = 'elenchos-private';

export interface ObjectQuarantine {
  /** The repository's object store (`<common>/objects`): read-only to the sandbox, its alternate. */
  objects: string;
  /** The sandbox's writable object folder (`GIT_OBJECT_DIRECTORY`), inside the store like receive-pack's. */
  dir: string;
  /** Where the checked objects go: the store itself, or the run's held folder (heldObjectsDir). */
  into: string;
  /** How the repository names its objects: what each object is checked against. */
  algorithm: 'sha1' | 'sha256';
}

/** `objects/elenchos-private`, made when missing: a sandbox hides it whole, which needs it to exist. */
export function privateObjectsDir(objects: string): string {
  const dir = path.join(objects, PRIVATE_OBJECTS);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The run's held folder: its agent's checked objects until the run (or its best-of run) ends. */
export function heldObjectsDir(objects: string, runId: string): string {
  return path.join(objects, PRIVATE_OBJECTS, runId, 'held');
}

/**
 * Creates an empty quarantine folder for one agent's turn: with `runId`, `objects/elenchos-private/<run>/incoming-<random>`,
 * settled into the run's held folder (which Elenchos's git calls read from then on); without, `objects/incoming-<random>`,
 * settled into the store.
 */
export async function openObjectQuarantine(root: string, runId?: string): Promise<ObjectQuarantine> {
  const { commonDir, objectFormat: algorithm } = await repositoryStore(root);
  const objects = path.join(commonDir, 'objects');
  if (runId === undefined) return { objects, dir: await mkdtemp(path.join(objects, 'incoming-')), into: objects, algorithm };
  const into = heldObjectsDir(objects, runId);
  await mkdir(into, { recursive: true });
  privateObjectsDir(objects);
  shareObjects(into);
  return { objects, dir: await mkdtemp(path.join(path.dirname(into), 'incoming-')), into, algorithm };
}

/**
 * The run's held objects into the store (checked again, never over an object it has), its private folder
 * removed: at the end of a run, or of a best-of run for all its candidates at once. Nothing held: nothing done.
 */
export async function releaseHeldObjects(root: string, runId: string): Promise<SettledObjects> {
  const { commonDir, objectFormat: algorithm } = await repositoryStore(root);
  const objects = path.join(commonDir, 'objects');
  const held = heldObjectsDir(objects, runId);
  try {
    if (!(await readdir(held).catch(() => null))) return { kept: 0, known: 0, forged: [] };
    return await settleObjectQuarantine(root, { objects, dir: held, into: objects, algorithm });
  } finally {
    unshareObjects(held);
    await rm(path.dirname(held), { recursive: true, force: true });
  }
}

export interface SettledObjects {
  /** Objects copied into the store (new to it). */
  kept: number;
  /** Objects the store already had (honest duplicates: a blob the agent re-added). */
  known: number;
  /** Names whose content hashes to another id, or that git cannot read: never copied. */
  forged: string[];
}

export const LOOSE_NAME = /^[0-9a-f]{2}$/;
export const LOOSE_REST = /^[0-9a-f]{38}([0-9a-f]{24})?$/;

/**
 * Checks every object of the quarantine against its id and copies the valid ones into the store (a fresh
 * file of ours: no inode the agent could still hold), never replacing an object the store has; then removes
 * the quarantine. Packs are indexed again by `git index-pack`, which hashes every object they hold: an
 * object the agent's own index names but its pack does not hold is forged.
 */
export async function settleObjectQuarantine(root: string, quarantine: ObjectQuarantine): Promise<SettledObjects> {
  const settled: SettledObjects = { kept: 0, known: 0, forged: [] };
  try {
    const { algorithm } = quarantine;
    for (const entry of await readdir(quarantine.dir, { withFileTypes: true })) {
      if (entry.isDirectory() && LOOSE_NAME.test(entry.name)) {
        for (const name of await readdir(path.join(quarantine.dir, entry.name))) {
          if (!LOOSE_REST.test(name)) continue; // git's own temporary files (tmp_obj_*): never an object
          const id = `${entry.name}${name}`;
          const outcome = await settleLoose(
            path.join(quarantine.dir, entry.name, name),
            path.join(quarantine.into, entry.name),
            id,
            algorithm,
          );
          if (outcome === 'forged') settled.forged.push(id);
          else settled[outcome]++;
        }
      } else if (entry.isDirectory() && entry.name === 'pack') {
        await settlePacks(root, path.join(quarantine.dir, 'pack'), path.join(quarantine.into, 'pack'), algorithm, settled);
      }
      // Anything else (info/alternates, a commit-graph, a symlink) is never read: it goes with the folder.
    }
    return settled;
  } finally {
    await removeObjectQuarantine(quarantine);
  }
}

/** Removes the quarantine folder and everything in it (every exit path of a turn). */
export async function removeObjectQuarantine(quarantine: ObjectQuarantine): Promise<void> {
  await rm(quarantine.dir, { recursive: true, force: true });
}

/** One loose object: hashed while copied to a temporary file beside its place, then linked there unless taken. */
async function settleLoose(file: string, storeDir: string, id: string, algorithm: string): Promise<'kept' | 'known' | 'forged'> {
  const source = await openRegular(file);
  if (!source) return 'forged';
  await mkdir(storeDir, { recursive: true });
  const temp = path.join(storeDir, `tmp_obj_elenchos_${randomBytes(6).toString('hex')}`);
  try {
    const target = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o444);
    let hashed: string | null;
    try {
      hashed = await copyHashingInflated(source, target, algorithm);
    } finally {
      await target.close();
    }
    if (hashed !== id) return 'forged';
    // link(2) never replaces: an object the store has stays as it is (git's own finalize_object_file does the same).
    return await link(temp, path.join(storeDir, id.slice(2))).then(
      () => 'kept' as const,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return 'known' as const;
        throw error;
      },
    );
  } finally {
    await source.close();
    await unlink(temp).catch(() => undefined);
  }
}

/** The id a loose object file's content has (the hash of its inflated bytes), or null when it is not one zlib stream. */
export async function looseObjectId(source: FileHandle, algorithm: string): Promise<string | null> {
  return copyHashingInflated(source, null, algorithm);
}

/** Copies `source` to `target` (when given) byte for byte; returns the hash of its inflated content (a loose object's id), or null when it is not one zlib stream. */
async function copyHashingInflated(source: FileHandle, target: FileHandle | null, algorithm: string): Promise<string | null> {
  const hash = createHash(algorithm);
  const inflate = createInflate();
  inflate.on('data', (chunk: Buffer) => hash.update(chunk));
  const ended = new Promise<boolean>((resolve) => {
    inflate.on('end', () => resolve(true));
    inflate.on('error', () => resolve(false));
  });
  let total = 0;
  for await (const chunk of source.createReadStream({ autoClose: false, start: 0 })) {
    const bytes = chunk as Buffer;
    total += bytes.length;
    if (target) await target.write(bytes);
    if (!inflate.write(bytes)) await new Promise((resolve) => inflate.once('drain', resolve));
  }
  inflate.end();
  // Bytes after the zlib stream are data git refuses to read ("garbage at end of loose object"): not an object.
  if (!(await ended) || inflate.bytesWritten !== total) return null;
  return hash.digest('hex');
}

/** Packs: indexed again from their bytes by git, copied in whole with that index; objects the agent's index claims beyond it are forged. */
async function settlePacks(
  root: string,
  quarantinePacks: string,
  storePacks: string,
  algorithm: string,
  settled: SettledObjects,
): Promise<void> {
  for (const name of await readdir(quarantinePacks)) {
    if (!/^pack-[0-9a-f]+\.pack$/.test(name)) continue; // .idx is rebuilt; .rev, .bitmap, .keep are never trusted
    const source = await openRegular(path.join(quarantinePacks, name));
    if (!source) continue;
    await mkdir(storePacks, { recursive: true });
    const stem = path.join(storePacks, `tmp_pack_elenchos_${randomBytes(6).toString('hex')}`);
    try {
      const target = await open(`${stem}.pack`, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o444);
      try {
        for await (const chunk of source.createReadStream({ autoClose: false, start: 0 })) await target.write(chunk as Buffer);
      } finally {
        await target.close();
      }
      // index-pack hashes every object it finds; a pack it cannot read (thin, corrupt) is refused whole.
      const checksum = await git(['index-pack', '-o', `${stem}.idx`, `${stem}.pack`], { cwd: root }).then(
        (out) => out.trim(),
        () => null,
      );
      const claimed = await idxObjects(path.join(quarantinePacks, name.replace(/\.pack$/, '.idx')), algorithm);
      const real = checksum === null ? new Set<string>() : new Set(await idxObjects(`${stem}.idx`, algorithm));
      settled.forged.push(...claimed.filter((id) => !real.has(id)));
      if (checksum === null) continue;
      const final = path.join(storePacks, `pack-${checksum}`);
      // The pack first, its index last: git sees a pack only through its index. An existing pack is never replaced.
      const packed = await link(`${stem}.pack`, `${final}.pack`).then(
        () => true,
        (error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? false : Promise.reject(error)),
      );
      if (packed) await link(`${stem}.idx`, `${final}.idx`);
      if (packed) settled.kept += real.size;
      else settled.known += real.size;
    } finally {
      await source.close();
      await unlink(`${stem}.pack`).catch(() => undefined);
      await unlink(`${stem}.idx`).catch(() => undefined);
    }
  }
}

/** The object ids a pack index (version 2) names; none when it is missing or not one. */
export async function idxObjects(file: string, algorithm: string): Promise<string[]> {
  const handle = await openRegular(file);
  if (!handle) return [];
  try {
    const bytes = await handle.readFile();
    const width = algorithm === 'sha256' ? 32 : 20;
    if (bytes.length < 8 + 256 * 4 || bytes.readUInt32BE(0) !== 0xff744f63 || bytes.readUInt32BE(4) !== 2) return [];
    const count = bytes.readUInt32BE(8 + 255 * 4);
    const start = 8 + 256 * 4;
    if (bytes.length < start + count * width) return [];
    return Array.from({ length: count }, (_, i) => bytes.subarray(start + i * width, start + (i + 1) * width).toString('hex'));
  } finally {
    await handle.close();
  }
}

/** Opens a regular file without following a symlink; null for anything else (a FIFO never blocks the open). */
export async function openRegular(file: string): Promise<FileHandle | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return null;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return null;
}
