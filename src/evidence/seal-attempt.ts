// Sealing one attempt when it ends: its folder redacted, then `attempts/NN/manifest.json` (the sha256 of
// every file in it, HMAC-signed when a key is set). The entries are also kept in memory, and the run's
// final manifest lists them as sealed instead of reading the folder again, so what a later attempt's
// agent (or app) changes in an earlier attempt's evidence shows in `evidence verify` (issue #25, item 8).
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { EVIDENCE_FILES, manifestPath } from './layout.js';
import { hashFile, hashTree, signFiles, type Manifest, type ManifestEntry } from './manifest.js';
import { Redactor } from './redact.js';
import { jsonText, writeTextAtomic } from './write-json.js';

export interface AttemptSeal {
  number: number;
  /** The attempt's folder relative to the run folder, POSIX (`attempts/01`). */
  rel: string;
  dir: string;
  /** Every file of the folder as sealed, its manifest.json included (by the bytes written). */
  entries: Record<string, ManifestEntry>;
}

export interface SealAttemptOptions {
  values: readonly string[];
  signingKey?: string;
}

// Text Elenchos itself appends to a sealed file later (setup.log: the setup cache's background copy ends
// after attempt 1 does), by absolute path. Only exactly these bytes after the sealed ones are accepted.
const lateAppends = new Map<string, string[]>();
const sealedFiles = new Set<string>();

/** Records text Elenchos appended to `file`, so a sealed file that grew by exactly this is not called changed. */
export function noteElenchosAppend(file: string, text: string): void {
  const key = path.resolve(file);
  if (!sealedFiles.has(key)) return; // not sealed yet: the seal covers it as it is then
  lateAppends.set(key, [...(lateAppends.get(key) ?? []), text]);
}

/** Redacts the attempt's folder and writes its manifest; returns what was sealed. */
export async function sealAttempt(runDir: string, dir: string, number: number, options: SealAttemptOptions): Promise<AttemptSeal> {
  await new Redactor({ values: options.values }).redactTree(dir);
  const files = await hashTree(dir);
  const entries = { ...files, [EVIDENCE_FILES.manifest]: await writeAttemptManifest(dir, files, options.signingKey) };
  for (const name of Object.keys(files)) {
    const abs = path.resolve(dir, name);
    sealedFiles.add(abs);
    lateAppends.delete(abs);
  }
  return { number, rel: path.relative(runDir, dir).split(path.sep).join('/'), dir, entries };
}

/**
 * What the final manifest lists for each sealed attempt (see WriteManifestOptions.sealed), and the
 * changes found since each was sealed (`attempt 1: modified: agent.log`). A file Elenchos appended to
 * since (noteElenchosAppend) is listed as it is now, when it is exactly the sealed bytes plus those appends.
 * Call it before the final redaction; `rehash` then gives the listing after it.
 */
export async function checkSeals(seals: readonly AttemptSeal[]): Promise<{ problems: string[]; grown: string[] }> {
  const problems: string[] = [];
  const grown: string[] = [];
  for (const seal of seals) {
    const now = await hashTree(seal.dir);
    now[EVIDENCE_FILES.manifest] = await hashFile(manifestPath(seal.dir)).catch(() => ({ sha256: '', size: -1 }));
    for (const [name, entry] of Object.entries(seal.entries)) {
      const current = now[name];
      const abs = path.resolve(seal.dir, name);
      if (!current) problems.push(`attempt ${seal.number}: missing: ${name}`);
      else if (current.sha256 === entry.sha256 && current.size === entry.size) continue;
      else if (await grewByAppends(abs, entry)) grown.push(abs);
      else problems.push(`attempt ${seal.number}: modified: ${name}`);
    }
    for (const name of Object.keys(now)) if (!(name in seal.entries)) problems.push(`attempt ${seal.number}: extra: ${name}`);
  }
  return { problems, grown };
}

/**
 * What the run's manifest lists for each sealed folder: as sealed, but `grown` files (checked by checkSeals)
 * as they are now. A folder with a grown file gets its own manifest re-written (and re-signed) over the same
 * entries, so the attempt's manifest and the run's agree: an honest run verifies intact, while anything else
 * changed since the seal is still listed as sealed in both (`evidence verify` and `apply` name it).
 */
export async function sealedListing(
  seals: readonly AttemptSeal[],
  grown: readonly string[],
  signingKey?: string,
): Promise<Record<string, Record<string, ManifestEntry>>> {
  const out: Record<string, Record<string, ManifestEntry>> = {};
  for (const seal of seals) {
    const entries = { ...seal.entries };
    const mine = Object.keys(entries).filter((name) => grown.includes(path.resolve(seal.dir, name)));
    for (const name of mine) entries[name] = await hashFile(path.resolve(seal.dir, name));
    if (mine.length > 0) entries[EVIDENCE_FILES.manifest] = await writeAttemptManifest(seal.dir, entries, signingKey);
    out[seal.rel] = entries;
  }
  return out;
}

// The attempt's manifest over `entries` (its own line left out); returns the entry for the bytes written.
async function writeAttemptManifest(dir: string, entries: Record<string, ManifestEntry>, signingKey?: string): Promise<ManifestEntry> {
  const { [EVIDENCE_FILES.manifest]: _self, ...files } = entries;
  const manifest: Manifest = { schemaVersion: 1, algorithm: 'sha256', files };
  if (signingKey) manifest.hmac = signFiles(files, signingKey);
  const text = jsonText(manifest);
  await writeTextAtomic(manifestPath(dir), text);
  const bytes = Buffer.from(text, 'utf8');
  return { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

async function grewByAppends(file: string, sealed: ManifestEntry): Promise<boolean> {
  const appended = Buffer.from((lateAppends.get(file) ?? []).join(''), 'utf8');
  if (appended.length === 0) return false;
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return false;
  try {
    const info = await handle.stat();
    if (info.size !== sealed.size + appended.length) return false;
    const data = Buffer.alloc(info.size);
    await handle.read(data, 0, info.size, 0);
    const head = data.subarray(0, sealed.size);
    return createHash('sha256').update(head).digest('hex') === sealed.sha256 && data.subarray(sealed.size).equals(appended);
  } finally {
    await handle.close();
  }
}
