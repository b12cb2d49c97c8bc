// Keeps secrets out of evidence: configured values and well-known token formats become [REDACTED].
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, open, readdir, readlink, rename, rm, stat, symlink, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { maskBinaryFile, maskBuffer } from './redact-binary.js';
import { encodedCores, encodedValues, secretForms } from './redact-forms.js';
import { FormMatcher } from './redact-matcher.js';
import { LineRedactor, REDACTED, type SpelledSecrets } from './redact-rules.js';
import { SeparatedSecrets } from './redact-separated.js';
import { WrappedSecrets } from './redact-wrapped.js';

export { REDACTED };
export { MAX_ENCODED_LENGTH, MIN_ENCODED_LENGTH, MIN_SECRET_LENGTH } from './redact-forms.js';
/** A line longer than this is cut (see LineRedactor.cutPoint), so one huge line cannot exhaust memory. */
const MAX_LINE = 1024 * 1024;
/** What a cut keeps back at least: the start of a secret or token that may end in the next read. */
const HOLD = 64 * 1024;
const SNIFF_BYTES = 8000;
/** Files we or the verifier write as text, whatever bytes they start with. */
const TEXT_NAME = /\.(log|ndjson|jsonl|json|txt|md|patch|diff|xml|html|csv)$/i;

export interface RedactorOptions {
  /** Secret values to remove wherever they appear (env values named in config, secret variables, Kane credentials). */
  values?: readonly string[];
}

export interface RedactFileResult {
  /** Whether the file was rewritten. */
  changed: boolean;
  replacements: number;
  /** Set when the file was handled as binary (a NUL byte in its first 8 KB): secrets masked byte for byte. */
  binary?: boolean;
}

export interface RedactTreeResult {
  files: number;
  changed: number;
  binary: number;
  /** Files, folders and symlinks renamed because their name held a secret, and symlinks whose target did. */
  renamed: number;
  replacements: number;
}

/** Redacts text, files and folders with one set of secrets. */
export class Redactor {
  private readonly values: readonly string[];
  // Built on first use: a run's redactor for its printed lines never scans a file, and the other way round.
  private textMatcher: FormMatcher | null | undefined;
  private byteMatcher: FormMatcher | null | undefined;
  /** The secrets long enough to be redacted encoded, and their base64 and base32 cores: for encodings spread over lines. */
  private readonly encoded: { cores: string[]; values: string[] };

  constructor(options: RedactorOptions = {}) {
    this.values = options.values ?? [];
    const values = encodedValues(options.values);
    this.encoded = { cores: [...new Set(values.flatMap((v) => encodedCores(Buffer.from(v))))], values };
  }

  private get textValues(): FormMatcher | null {
    if (this.textMatcher === undefined) this.textMatcher = matcherOf(secretForms(this.values, false));
    return this.textMatcher;
  }

  // Files are scanned as latin1, one char per byte, so bytes outside a match are written back untouched
  // even when they are not valid UTF-8; the secrets are matched by their UTF-8 bytes.
  private get byteValues(): FormMatcher | null {
    if (this.byteMatcher === undefined) this.byteMatcher = matcherOf(secretForms(this.values, true));
    return this.byteMatcher;
  }

  /** Characters a cut keeps back: HOLD, or the longest secret (or its spelled-out form) when one is longer. */
  private get hold(): number {
    return Math.max(HOLD, ...secretForms(this.values, true).map((v) => v.length), this.spelled(true)?.separated.longest ?? 0);
  }

  /** `data` (a binary file held whole, as a patch's binary hunk makes it) with each secret byte masked, as redactFile does a binary file. */
  maskBytes(data: Buffer): Buffer {
    return maskBuffer(data, this.byteValues, this.spelled(true)?.secrets).data;
  }

  /** Returns `text` with every secret replaced. */
  redactText(text: string): string {
    const scanner = this.textScanner();
    const out: string[] = [];
    for (const line of text.split('\n')) {
      const kept = scanner.line(line);
      if (kept !== null) out.push(kept);
    }
    return out.join('\n');
  }

  /**
   * A redactor for one stream of lines (an app's output as it is printed): each line is judged with the
   * ones before it, so a secret that base64 wraps or a hex dump spreads over lines is hidden in each.
   */
  lineStream(): (line: string) => string {
    const scanner = this.textScanner();
    return (text) =>
      text
        .split('\n')
        .map((line) => scanner.line(line))
        .filter((line) => line !== null)
        .join('\n');
  }

  private textScanner(): LineRedactor {
    return new LineRedactor(this.textValues, this.wrapped(false), this.spelled(false));
  }

  private wrapped(latin1: boolean): WrappedSecrets | null {
    return this.encoded.values.length > 0 ? new WrappedSecrets(this.encoded.cores, this.encoded.values, latin1) : null;
  }

  /** A scanner of one stream for the secrets spelled out character by character (`latin1`: as their bytes). */
  private spelled(latin1: boolean): SpelledSecrets | null {
    if (this.encoded.values.length === 0) return null;
    const secrets = this.encoded.values.map((v) => (latin1 ? Buffer.from(v).toString('latin1') : v));
    return { separated: new SeparatedSecrets(secrets), secrets };
  }

  /**
   * Rewrites a file in place (streamed, atomically) when it holds a secret. Text gets `[REDACTED]`; a
   * binary file (a NUL byte in its first 8 KB, unless its name says text: a log that starts with a NUL
   * is still a log) gets each secret byte replaced by `*`, see maskBinaryFile.
   */
  async redactFile(file: string): Promise<RedactFileResult> {
    const tmp = `${file}.${randomBytes(4).toString('hex')}.redact.tmp`;
    if (!TEXT_NAME.test(file) && (await looksBinary(file))) {
      const replacements = await maskBinaryFile(file, tmp, this.byteValues, this.spelled(true)?.secrets).catch(async (error: unknown) => {
        await rm(tmp, { force: true });
        throw error;
      });
      if (replacements === 0) {
        await unlink(tmp);
        return { changed: false, replacements: 0, binary: true };
      }
      await chmod(tmp, (await stat(file)).mode & 0o7777);
      await rename(tmp, file);
      return { changed: true, replacements, binary: true };
    }
    const scanner = new LineRedactor(this.byteValues, this.wrapped(true), this.spelled(true));
    const hold = this.hold;
    const out = createWriteStream(tmp, { encoding: 'latin1' });
    // A failed write (a full disk) must reject this call, not surface as an unhandled 'error' event: the
    // stream keeps its error (out.errored), the next line stops on it, and finished() rejects with it.
    out.on('error', () => {});
    try {
      let pending = '';
      const emit = async (line: string, newline: boolean) => {
        if (out.errored) throw out.errored;
        const kept = scanner.line(line, newline);
        if (kept === null) return;
        if (!out.write(newline ? `${kept}\n` : kept)) await once(out, 'drain');
      };
      for await (const chunk of createReadStream(file, { encoding: 'latin1', highWaterMark: 256 * 1024 })) {
        pending += chunk as string;
        const lines = pending.split('\n');
        pending = lines.pop() as string;
        for (const line of lines) await emit(line, true);
        if (pending.length > MAX_LINE) {
          const cut = scanner.cutPoint(pending, hold);
          await emit(pending.slice(0, cut), false);
          pending = pending.slice(cut);
        }
      }
      await emit(pending, false);
      out.end();
      await finished(out);
      if (scanner.count === 0) {
        await unlink(tmp);
        return { changed: false, replacements: 0 };
      }
      await chmod(tmp, (await stat(file)).mode & 0o7777);
      await rename(tmp, file);
      return { changed: true, replacements: scanner.count };
    } catch (error) {
      // Closed before this call returns, so that a failed call leaves no file open either.
      out.destroy();
      await finished(out).catch(() => undefined);
      await rm(tmp, { force: true });
      throw error;
    }
  }

  /** Redacts every regular file under `dir` (symlinks are neither followed nor rewritten). */
  async redactTree(dir: string): Promise<RedactTreeResult> {
    const result: RedactTreeResult = { files: 0, changed: 0, binary: 0, renamed: 0, replacements: 0 };
    for (const file of await listFiles(dir)) {
      const one = await this.redactFile(file);
      result.files++;
      if (one.changed) result.changed++;
      if (one.binary) result.binary++;
      result.replacements += one.replacements;
    }
    result.renamed = await this.redactNames(dir);
    return result;
  }

  /** `name` (a file's, a folder's, a symlink's target) with every secret replaced; `[REDACTED]` holds no `/`. */
  redactName(name: string): string {
    return this.redactText(name);
  }

  /**
   * Renames every entry under `dir` whose name holds a secret (deepest first, so a path stays valid until
   * its own turn), and rewrites every symlink whose target does: an agent that names a file after a key,
   * or links to it, stores it in the tree's listing and in an archive's entry names, where no content scan
   * looks. Two names that redact alike get `-2`, `-3`…: nothing is overwritten. Returns how many changed.
   */
  private async redactNames(dir: string): Promise<number> {
    let changed = 0;
    const visit = async (current: string) => {
      for (const entry of await readdir(current, { withFileTypes: true })) {
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) await visit(full);
        if (entry.isSymbolicLink()) {
          const target = await readlink(full);
          const clean = this.redactName(target);
          if (clean !== target) {
            await unlink(full);
            await symlink(clean, full);
            changed++;
          }
        }
        const redacted = this.redactName(entry.name);
        if (redacted === entry.name) continue;
        const name = redacted === '' || redacted === '.' || redacted === '..' ? REDACTED : redacted;
        let to = path.join(current, name);
        for (
          let n = 2;
          await lstat(to).then(
            () => true,
            () => false,
          );
          n++
        )
          to = path.join(current, `${name}-${n}`);
        await rename(full, to);
        changed++;
      }
    };
    if ((await lstat(dir)).isDirectory()) await visit(dir);
    return changed;
  }
}

function matcherOf(forms: string[]): FormMatcher | null {
  return forms.length > 0 ? new FormMatcher(forms) : null;
}

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

/** Every regular file under `dir`, depth first, without following symlinks. */
export async function listFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const visit = async (current: string) => {
    const entries = new Map((await readdir(current, { withFileTypes: true })).map((e) => [e.name, e]));
    // Names in JavaScript's order (UTF-16 code units), whatever order the file system lists them in.
    for (const name of [...entries.keys()].sort()) {
      const entry = entries.get(name)!;
      const full = path.join(current, name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  if ((await lstat(dir)).isDirectory()) await visit(dir);
  return files;
}
