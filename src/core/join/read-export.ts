// Opening a share's export (`run --export`) on the joining machine, where it is a stranger's file: every entry
// is looked at before anything is written (only files and folders, only `elenchos-share.json` and `runs/…`,
// no absolute or `..` name, bounded counts and sizes, bounded inflation), then it is extracted into a fresh
// folder and its manifest parsed. A problem is one line that names the file; nothing is thrown for it.
import { createReadStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, extract, type ReadEntry } from 'tar';
import { describeError } from '../../errors.js';
import { EVIDENCE_FILE_LIMIT, parseJsonBytes } from '../../util/json-file.js';
import { readRegularFile } from '../../util/regular-file.js';
import { formatZodIssues } from '../../util/zod-issues.js';
import { SHARE_FILE, SHARE_FORMAT_VERSION, SHARE_RUNS_DIR, ShareManifestSchema, type ShareManifest } from '../many/share-manifest.js';

/** More entries than this is no share of evidence (a run folder holds tens to hundreds of files). */
export const MAX_ENTRIES = 100_000;
/** The bytes an export may unpack to, counted as it inflates (a gzip bomb stops here, not at the disk's end). */
export const MAX_BYTES = 4 * 1024 ** 3;

// Headers and padding on top of the files' own bytes (a header and at most one padded block per entry), and the end.
const inflateSlack = (limits: ExportLimits) => limits.entries * 1024 + 1024 * 1024;

export type OpenedExport = { ok: true; dir: string; manifest: ShareManifest } | { ok: false; problem: string };

export interface ExportLimits {
  entries: number;
  bytes: number;
}

/** Looks at every entry of `file`, extracts it into `dest` (created, empty), and reads its share manifest. */
export async function openExport(
  file: string,
  dest: string,
  limits: ExportLimits = { entries: MAX_ENTRIES, bytes: MAX_BYTES },
): Promise<OpenedExport> {
  const scanned = await scanEntries(file, limits);
  if (scanned !== null) return { ok: false, problem: scanned };
  await mkdir(dest, { recursive: true });
  try {
    // preserveOwner false even as root; only files and folders (the scan refused the rest; this is the second lock).
    await extract({
      file,
      cwd: dest,
      strict: true,
      preserveOwner: false,
      filter: (_p, entry) => 'type' in entry && (entry.type === 'File' || entry.type === 'Directory'),
    });
  } catch (error) {
    return { ok: false, problem: `cannot be unpacked (${describeError(error)})` };
  }
  const top = (await readdir(dest)).sort();
  const stray = top.find((name) => name !== SHARE_FILE && name !== SHARE_RUNS_DIR);
  if (stray) return { ok: false, problem: `holds ${stray} beside ${SHARE_FILE} and ${SHARE_RUNS_DIR}/` };
  const manifest = await readManifest(path.join(dest, SHARE_FILE));
  return typeof manifest === 'string' ? { ok: false, problem: manifest } : { ok: true, dir: dest, manifest };
}

/** The first reason not to unpack `file`, or null when every entry is a plain file or folder where a share keeps it. */
async function scanEntries(file: string, limits: ExportLimits): Promise<string | null> {
  let problem: string | null = null;
  let entries = 0;
  let declared = 0;
  let inflated = 0;
  const parser = new Parser({ strict: true });
  parser.on('entry', (entry: ReadEntry) => {
    entries++;
    declared += entry.size;
    problem ??= entryProblem(entry, { entries, declared }, limits);
    if (problem) parser.abort(new Error(problem));
    entry.resume();
  });
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > limits.bytes + inflateSlack(limits)) done(new Error(`unpacks to more than ${limits.bytes} bytes`));
      else done(null, chunk);
    },
  });
  try {
    // Our own gunzip before tar's Parser (which can inflate by itself): it gives no count of inflated bytes to stop on.
    await pipeline(createReadStream(file), createGunzip(), counter, parser);
  } catch (error) {
    return problem ?? `is not a readable tar.gz (${describeError(error)})`;
  }
  if (problem) return problem;
  return entries === 0 ? 'is empty' : null;
}

/** Why one entry may not be unpacked: its type, its name, or the counts so far. */
function entryProblem(entry: ReadEntry, so: { entries: number; declared: number }, limits: ExportLimits): string | null {
  if (so.entries > limits.entries) return `holds more than ${limits.entries} entries`;
  if (so.declared > limits.bytes) return `declares more than ${limits.bytes} bytes`;
  const name = entry.path;
  if (entry.type !== 'File' && entry.type !== 'Directory')
    return `holds a ${entry.type} entry (${JSON.stringify(name)}): an export holds only files and folders`;
  if (name.includes('\0') || name.includes('\\') || path.posix.isAbsolute(name) || /^[A-Za-z]:/.test(name))
    return `holds an entry with an absolute or unusual name (${JSON.stringify(name)})`;
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return `holds an entry whose name climbs out (${JSON.stringify(name)})`;
  if (parts.length === 0) return null;
  if (parts[0] === SHARE_FILE && parts.length === 1 && entry.type === 'File') return null;
  if (parts[0] === SHARE_RUNS_DIR) return null;
  return `holds ${JSON.stringify(name)}, outside ${SHARE_FILE} and ${SHARE_RUNS_DIR}/`;
}

/** The share manifest, or one line saying why it cannot be used. */
async function readManifest(file: string): Promise<ShareManifest | string> {
  let value: unknown;
  try {
    value = parseJsonBytes(await readRegularFile(file, { label: SHARE_FILE, maxBytes: EVIDENCE_FILE_LIMIT }), SHARE_FILE);
  } catch (error) {
    return `has no readable ${SHARE_FILE} (${describeError(error)})`;
  }
  const version = (value as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof version === 'number' && version > SHARE_FORMAT_VERSION)
    return `is share format ${version}, newer than this elenchos reads (${SHARE_FORMAT_VERSION}); join with the version that wrote it`;
  const parsed = ShareManifestSchema.safeParse(value);
  if (!parsed.success) return `has an invalid ${SHARE_FILE}: ${formatZodIssues(SHARE_FILE, parsed.error.issues).slice(0, 3).join('; ')}`;
  return parsed.data;
}
