// manifest.json: the hash of every evidence file (the final run.json included, see seal.ts), optionally HMAC-signed.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { EVIDENCE_FILES, manifestPath } from './layout.js';
import { listFiles } from './redact.js';
import { writeJsonAtomic } from './write-json.js';
import { EVIDENCE_FILE_LIMIT, readJsonFile } from '../util/json-file.js';

export const ManifestEntrySchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() });
export const ManifestSchema = z.object({
  schemaVersion: z.literal(1),
  algorithm: z.literal('sha256'),
  files: z.record(z.string(), ManifestEntrySchema),
  hmac: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;

export interface ManifestOptions {
  /** HMAC key (the caller reads `ELENCHOS_SIGNING_KEY`); without it the manifest is unsigned. */
  signingKey?: string;
}

export interface WriteManifestOptions extends ManifestOptions {
  /**
   * Files listed with these bytes instead of what is on disk now: the final run.json, renamed into
   * place only after the manifest exists, so the final state is never visible unsealed (docs/evidence.md).
   */
  pending?: Record<string, string>;
  /**
   * Folders sealed earlier (an attempt's, see seal-attempt.ts), relative to `runDir`, with the entries
   * they were sealed with: listed as sealed, never re-read, so a change made since shows in `verify`.
   */
  sealed?: Record<string, Record<string, ManifestEntry>>;
}

export interface ManifestCheck {
  ok: boolean;
  /** One line per problem: `modified: <path>`, `missing: <path>`, `extra: <path>`, signature problems. */
  problems: string[];
}

/** Hashes every file under `runDir` into `manifest.json`; call it after the last evidence is written. */
export async function writeManifest(runDir: string, options: WriteManifestOptions = {}): Promise<Manifest> {
  const files = await hashTree(runDir);
  for (const [name, text] of Object.entries(options.pending ?? {})) {
    const bytes = Buffer.from(text, 'utf8');
    files[name] = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  }
  for (const [dir, entries] of Object.entries(options.sealed ?? {})) {
    for (const name of Object.keys(files)) if (name.startsWith(`${dir}/`)) delete files[name];
    for (const [name, entry] of Object.entries(entries)) files[`${dir}/${name}`] = entry;
  }
  const sorted = Object.fromEntries(
    Object.keys(files)
      .sort()
      .map((name) => [name, files[name]!]),
  );
  const manifest: Manifest = { schemaVersion: 1, algorithm: 'sha256', files: options.sealed ? sorted : files };
  if (options.signingKey) manifest.hmac = signFiles(files, options.signingKey);
  await writeJsonAtomic(manifestPath(runDir), manifest);
  return manifest;
}

/** Compares `runDir` with its manifest: changed, missing and extra files, and the signature when a key is given. */
export async function verifyManifest(runDir: string, options: ManifestOptions = {}): Promise<ManifestCheck> {
  let manifest: Manifest;
  try {
    manifest = ManifestSchema.parse(
      (await readJsonFile(manifestPath(runDir), EVIDENCE_FILES.manifest, { maxBytes: EVIDENCE_FILE_LIMIT })).value,
    );
  } catch (error) {
    const why = (error as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT' ? 'missing' : 'unreadable or invalid';
    return { ok: false, problems: [`manifest.json is ${why}`] };
  }
  const problems: string[] = [];
  const actual = await hashTree(runDir);
  for (const [file, entry] of Object.entries(manifest.files)) {
    const now = actual[file];
    if (!now) problems.push(`missing: ${file}`);
    else if (now.sha256 !== entry.sha256 || now.size !== entry.size) problems.push(`modified: ${file}`);
  }
  for (const file of Object.keys(actual)) if (!(file in manifest.files)) problems.push(`extra: ${file}`);
  if (options.signingKey) {
    if (!manifest.hmac) problems.push('signature missing: manifest.json is not signed');
    else if (!sameHex(manifest.hmac, signFiles(manifest.files, options.signingKey))) {
      problems.push('signature invalid: manifest.json was changed or signed with another key');
    }
  }
  return { ok: problems.length === 0, problems };
}

/** The exact bytes the HMAC covers: the files map with sorted keys and no whitespace. */
export function canonicalFiles(files: Record<string, ManifestEntry>): string {
  const sorted = Object.keys(files).sort();
  return `{${sorted.map((k) => `${JSON.stringify(k)}:{"sha256":${JSON.stringify(files[k]?.sha256)},"size":${files[k]?.size}}`).join(',')}}`;
}

export function signFiles(files: Record<string, ManifestEntry>, key: string): string {
  return createHmac('sha256', key).update(canonicalFiles(files)).digest('hex');
}

export function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The sha256 and size of every file under `dir` (its own manifest.json left out), by POSIX relative path. */
export async function hashTree(runDir: string): Promise<Record<string, ManifestEntry>> {
  const self = manifestPath(runDir);
  const files: Record<string, ManifestEntry> = {};
  for (const file of await listFiles(runDir)) {
    if (file === self) continue;
    files[path.relative(runDir, file).split(path.sep).join('/')] = await hashFile(file);
  }
  return files;
}

export async function hashFile(file: string): Promise<ManifestEntry> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}
