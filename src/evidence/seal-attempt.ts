// Sealing one attempt when it ends: its folder redacted, then `attempts/NN/manifest.json` (the sha256 of
// every file in it, HMAC-signed when a key is set). The entries are also kept in memory, and the run's
// final manifest lists them as sealed instead of reading the folder again, so what a later attempt's
// agent (or app) changes in an earlier attempt's evidence shows in `evidence verify`.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { EVIDENCE_FILES, manifestPath } from './layout.js';
import { hashFile, hashTree, signFiles, type Manifest, type ManifestEntry } from './manifest.js';
import type { Redactor } from './redact.js';
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
  /** The run's secrets: what is removed from every file of the folder. */
  redactor: Redactor;
  signingKey?: string;
}

// Text Elenchos itself appends to a sealed file later (setup.log: the setup cache's background copy ends
// after attempt 1 does), by absolute path. Only exactly these bytes after the sealed ones are accepted.
const lateAppends = new Map<string, string[]>();
const sealedFiles = new Set<string>();

// Seals, the run's check of them, and Elenchos's own appends take turns (one chain per process): an append
// is then either inside the bytes a seal hashed or recorded as late, never both nor neither.
let turn: Promise<unknown> = Promise.resolve();
/** Runs `job` when no seal, seal check or append of Elenchos's own is under way. */
export function inSealTurn<T>(job: () => Promise<T>): Promise<T> {
  const next = turn.then(job, job);
  turn = next.catch(() => undefined);
  return next;
}

/** Appends Elenchos's own `text` to `file`; once the file is sealed, a later check accepts exactly this growth. */
export function appendElenchosText(file: string, text: string): Promise<void> {
  return inSealTurn(async () => {
    await appendFile(file, text);
    const key = path.resolve(file);
    if (sealedFiles.has(key)) lateAppends.set(key, [...(lateAppends.get(key) ?? []), text]);
  });
}

/** Redacts the attempt's folder and writes its manifest; returns what was sealed. */
export function sealAttempt(runDir: string, dir: string, number: number, options: SealAttemptOptions): Promise<AttemptSeal> {
  return inSealTurn(async () => {
    await options.redactor.redactTree(dir);
    const files = await hashTree(dir);
    const entries = { ...files, [EVIDENCE_FILES.manifest]: await writeAttemptManifest(dir, files, options.signingKey) };
    for (const name of Object.keys(files)) {
      const abs = path.resolve(dir, name);
      sealedFiles.add(abs);
      lateAppends.delete(abs);
    }
    return { number, rel: path.relative(runDir, dir).split(path.sep).join('/'), dir, entries };
  });
}

/**
 * What the final manifest lists for each sealed attempt (see WriteManifestOptions.sealed), and the
 * changes found since each was sealed (`attempt 1: modified: attempts/01/agent.log`, as `evidence verify` names it). A file Elenchos appended to
 * since (appendElenchosText) is `grown`, with the entry of the bytes checked, when it is exactly the sealed
 * bytes plus those appends and its attempt's own manifest is intact. Call it before the final redaction.
 */
export async function checkSeals(seals: readonly AttemptSeal[]): Promise<{ problems: string[]; grown: Map<string, ManifestEntry> }> {
  const problems: string[] = [];
  const grown = new Map<string, ManifestEntry>();
  for (const seal of seals) {
    const now = await hashTree(seal.dir);
    now[EVIDENCE_FILES.manifest] = await hashFile(manifestPath(seal.dir)).catch(() => ({ sha256: '', size: -1 }));
    const mine = new Map<string, ManifestEntry>();
    const before = problems.length;
    for (const [name, entry] of Object.entries(seal.entries)) {
      const current = now[name];
      const abs = path.resolve(seal.dir, name);
      if (!current) problems.push(`attempt ${seal.number}: missing: ${seal.rel}/${name}`);
      else if (current.sha256 === entry.sha256 && current.size === entry.size) continue;
      else if (name !== EVIDENCE_FILES.manifest && (await grewByAppends(abs, entry, current))) mine.set(abs, current);
      else problems.push(`attempt ${seal.number}: modified: ${seal.rel}/${name}`);
    }
    for (const name of Object.keys(now)) if (!(name in seal.entries)) problems.push(`attempt ${seal.number}: extra: ${seal.rel}/${name}`);
    // An attempt's manifest that was itself changed or removed is never written over: it stays the evidence.
    const manifestTouched = problems.slice(before).some((p) => p.endsWith(`: ${seal.rel}/${EVIDENCE_FILES.manifest}`));
    if (!manifestTouched) for (const [abs, entry] of mine) grown.set(abs, entry);
    else for (const abs of mine.keys()) problems.push(`attempt ${seal.number}: modified: ${seal.rel}/${path.relative(seal.dir, abs)}`);
  }
  return { problems, grown };
}

/**
 * What the run's manifest lists for each sealed folder: as sealed, but `grown` files (checked by checkSeals)
 * with the entry checked there, when the file still has exactly those bytes (anything written to it since
 * the check is not vouched for: it stays listed as sealed, and `evidence verify` names it). A folder with a
 * grown file gets its own manifest re-written (and re-signed) over the same entries, so the attempt's
 * manifest and the run's agree: an honest run verifies intact, while anything else changed since the seal
 * is still listed as sealed in both (`evidence verify` and `apply` name it).
 */
export async function sealedListing(
  seals: readonly AttemptSeal[],
  grown: ReadonlyMap<string, ManifestEntry>,
  signingKey?: string,
): Promise<Record<string, Record<string, ManifestEntry>>> {
  const out: Record<string, Record<string, ManifestEntry>> = {};
  for (const seal of seals) {
    const entries = { ...seal.entries };
    let changed = false;
    for (const name of Object.keys(entries)) {
      const checked = grown.get(path.resolve(seal.dir, name));
      if (!checked) continue;
      const now = await hashFile(path.resolve(seal.dir, name)).catch(() => null);
      if (now?.sha256 !== checked.sha256 || now.size !== checked.size) continue;
      entries[name] = checked;
      changed = true;
    }
    if (changed) entries[EVIDENCE_FILES.manifest] = await writeAttemptManifest(seal.dir, entries, signingKey);
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

// Whether `file` (hashed now as `current`) is exactly the sealed bytes followed by Elenchos's own late appends.
// Streamed: the file may be as large as an agent's log gets, too large to hold in one buffer.
async function grewByAppends(file: string, sealed: ManifestEntry, current: ManifestEntry): Promise<boolean> {
  const appended = Buffer.from((lateAppends.get(file) ?? []).join(''), 'utf8');
  if (appended.length === 0 || current.size !== sealed.size + appended.length) return false;
  const whole = createHash('sha256');
  const head = createHash('sha256');
  const tail: Buffer[] = [];
  let at = 0;
  try {
    for await (const chunk of createReadStream(file)) {
      const bytes = chunk as Buffer;
      whole.update(bytes);
      const cut = Math.max(0, Math.min(bytes.length, sealed.size - at));
      head.update(bytes.subarray(0, cut));
      if (cut < bytes.length) tail.push(bytes.subarray(cut));
      at += bytes.length;
      if (at > current.size) return false; // grew again meanwhile: not the bytes checked
    }
  } catch {
    return false;
  }
  if (at !== current.size || whole.digest('hex') !== current.sha256) return false;
  return head.digest('hex') === sealed.sha256 && Buffer.concat(tail).equals(appended);
}
