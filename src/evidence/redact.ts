// Keeps secrets out of evidence: configured values and well-known token formats become [REDACTED].
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { maskBinaryFile } from './redact-binary.js';
import { LineRedactor, valuesPattern } from './redact-rules.js';
import { WrappedSecrets } from './redact-wrapped.js';

export { REDACTED } from './redact-rules.js';

/** Shorter values would redact ordinary words and numbers all over the evidence. */
export const MIN_SECRET_LENGTH = 4;
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
  replacements: number;
}

/** Redacts text, files and folders with one set of secrets. */
export class Redactor {
  private readonly textValues: RegExp | null;
  private readonly byteValues: RegExp | null;
  /** Characters a cut keeps back: HOLD, or the longest secret when one is longer. */
  private readonly hold: number;
  /** The secrets long enough to be redacted encoded, and their base64 cores: for encodings spread over lines. */
  private readonly encoded: { cores: string[]; values: string[] };

  constructor(options: RedactorOptions = {}) {
    const forms = secretForms(options.values);
    this.encoded = encodedSecrets(options.values);
    this.textValues = valuesPattern(forms);
    // Files are scanned as latin1, one char per byte, so bytes outside a match are written back
    // untouched even when they are not valid UTF-8; the secrets are matched by their UTF-8 bytes.
    const byteForms = forms.map((v) => Buffer.from(v).toString('latin1'));
    this.byteValues = valuesPattern(byteForms);
    this.hold = Math.max(HOLD, ...byteForms.map((v) => v.length));
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
    return new LineRedactor(this.textValues, this.wrapped(false));
  }

  private wrapped(latin1: boolean): WrappedSecrets | null {
    return this.encoded.values.length > 0 ? new WrappedSecrets(this.encoded.cores, this.encoded.values, latin1) : null;
  }

  /**
   * Rewrites a file in place (streamed, atomically) when it holds a secret. Text gets `[REDACTED]`; a
   * binary file (a NUL byte in its first 8 KB, unless its name says text: a log that starts with a NUL
   * is still a log) gets each secret byte replaced by `*`, see maskBinaryFile.
   */
  async redactFile(file: string): Promise<RedactFileResult> {
    const tmp = `${file}.${randomBytes(4).toString('hex')}.redact.tmp`;
    if (!TEXT_NAME.test(file) && (await looksBinary(file))) {
      const replacements = await maskBinaryFile(file, tmp, this.byteValues).catch(async (error: unknown) => {
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
    const scanner = new LineRedactor(this.byteValues, this.wrapped(true));
    const out = createWriteStream(tmp, { encoding: 'latin1' });
    // A failed write (a full disk) must reject this call, not surface as an unhandled 'error' event: the
    // stream keeps its error (out.errored), the next line stops on it, and finished() rejects with it.
    out.on('error', () => {});
    try {
      let pending = '';
      const emit = async (line: string, newline: boolean) => {
        if (out.errored) throw out.errored;
        const kept = scanner.line(line);
        if (kept === null) return;
        if (!out.write(newline ? `${kept}\n` : kept)) await once(out, 'drain');
      };
      for await (const chunk of createReadStream(file, { encoding: 'latin1', highWaterMark: 256 * 1024 })) {
        pending += chunk as string;
        const lines = pending.split('\n');
        pending = lines.pop() as string;
        for (const line of lines) await emit(line, true);
        if (pending.length > MAX_LINE) {
          const cut = scanner.cutPoint(pending, this.hold);
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
    const result: RedactTreeResult = { files: 0, changed: 0, binary: 0, replacements: 0 };
    for (const file of await listFiles(dir)) {
      const one = await this.redactFile(file);
      result.files++;
      if (one.changed) result.changed++;
      if (one.binary) result.binary++;
      result.replacements += one.replacements;
    }
    return result;
  }
}

// The ways a secret shows up in logs and JSON: as is, JSON-escaped, URL-encoded, hex and base64
// (an app that prints `/proc/<pid>/environ` encoded is the agent's code: issue #25); and each line of a
// multi-line value on its own, because files are scanned line by line.
function secretForms(values: readonly string[] | undefined): string[] {
  const forms = new Set<string>();
  const add = (v: string) => {
    if (v.trim().length < MIN_SECRET_LENGTH) return;
    forms.add(v);
    forms.add(JSON.stringify(v).slice(1, -1));
    forms.add(JSON.stringify(JSON.stringify(v).slice(1, -1)).slice(1, -1));
    forms.add(encodeURIComponent(v));
    // Shorter ones encode to a few characters that ordinary text has; much longer ones (a 64 KB blob)
    // would make the one pattern of every form larger than V8 compiles.
    if (v.length < MIN_ENCODED_LENGTH || v.length > MAX_ENCODED_LENGTH) return;
    const bytes = Buffer.from(v);
    forms.add(bytes.toString('hex'));
    forms.add(bytes.toString('hex').toUpperCase());
    for (const encoded of base64Cores(bytes)) {
      forms.add(encoded);
      forms.add(encoded.replaceAll('+', '-').replaceAll('/', '_'));
    }
  };
  values?.forEach((value) => {
    add(value);
    // A one-line value is its only line, already added.
    for (const part of value.split(/\r?\n/)) if (part.length >= 8) add(part);
  });
  return [...forms];
}

/** The secrets (and lines of multi-line ones) that are also redacted encoded, with all their base64 cores. */
function encodedSecrets(values: readonly string[] | undefined): { cores: string[]; values: string[] } {
  const kept = new Set<string>();
  for (const value of values ?? []) {
    for (const v of [value, ...value.split(/\r?\n/)]) {
      if (v.trim().length >= MIN_SECRET_LENGTH && v.length >= MIN_ENCODED_LENGTH && v.length <= MAX_ENCODED_LENGTH) kept.add(v);
    }
  }
  const cores = [...kept].flatMap((v) => base64Cores(Buffer.from(v)).flatMap((c) => [c, c.replaceAll('+', '-').replaceAll('/', '_')]));
  return { cores: [...new Set(cores)], values: [...kept] };
}

/** A secret this long or longer (and no longer than MAX_ENCODED_LENGTH) is also redacted hex- and base64-encoded. */
export const MIN_ENCODED_LENGTH = 8;
export const MAX_ENCODED_LENGTH = 4096;

/**
 * The base64 characters that depend on `bytes` alone, at each of the three offsets they may sit at in a
 * longer encoded text (a whole environment encoded at once): the characters shared with the bytes before
 * or after are left out, so every copy is found wherever it starts.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const skip = [0, 2, 3][offset]!; // characters that carry bits of the bytes before
    const whole = Math.floor(((offset + bytes.length) * 8) / 6); // characters made of whole bits of ours
    cores.push(encoded.slice(skip, whole));
  }
  return cores;
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
