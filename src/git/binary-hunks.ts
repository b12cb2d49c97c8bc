// The binary hunks of a stored `git diff --binary` patch, redacted. Git writes a binary file's new content
// deflated and base85-encoded (a `literal`, or a `delta` against the old content), where no scan of the
// patch's text can see a secret the agent put in it (a UTF-16 file it staged, say). Each hunk is undone to
// the file it makes, masked byte for byte like any binary file, and written back as a `literal` of the
// masked file, its index line naming the masked blob, so `git apply` (restore, apply) writes the masked
// file: the evidence keeps the change, not the secret. Formats: git's diff.c (emit_binary_diff_body),
// base85.c, delta.h/patch-delta.c, apply.c (apply_binary: the result must hash to the index line's id).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { deflateSync, inflateSync } from 'node:zlib';
import { gitBytes } from './git.js';

const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
const DIGIT = new Map([...BASE85].map((ch, i) => [ch, i]));
const HUNK = /^(literal|delta) (\d+)$/;
const INDEX = /^index ([0-9a-f]+)\.\.([0-9a-f]+)(.*)$/;

/**
 * Rewrites `patchFile` with each binary hunk's file passed through `mask` (which keeps its length); a
 * delta's old content is read from the repository at `cwd`. Returns how many files were masked; the patch
 * is replaced only when one was. Streamed: only a file's header and its binary hunks are held.
 */
export async function redactBinaryHunks(patchFile: string, cwd: string, mask: (data: Buffer) => Buffer): Promise<number> {
  if (!(await holdsBinaryHunk(patchFile))) return 0; // most patches: read once, nothing written
  const tmp = `${patchFile}.${process.pid}.binary.tmp`;
  const out = createWriteStream(tmp, { encoding: 'latin1' });
  // A failed write rejects below (out.errored, finished()), never as an unhandled 'error' event.
  out.on('error', () => {});
  const write = async (text: string) => {
    if (out.errored) throw out.errored;
    if (!out.write(text)) await once(out, 'drain');
  };
  let masked = 0;
  // The current file's header lines, held until it is clear whether its change is binary.
  let header: string[] = [];
  let hunks: { kind: string; size: number; lines: string[] }[] = [];
  let state: 'text' | 'header' | 'binary' | 'hunk' = 'text';
  const flushHeader = async () => {
    if (header.length > 0) await write(`${header.join('\n')}\n`);
    header = [];
  };
  const finishBinary = async () => {
    const [forward, reverse] = hunks;
    const index = header.map((line) => INDEX.exec(line)).find(Boolean);
    let lines = hunks.flatMap((h) => [`${h.kind} ${h.size}`, ...h.lines, '']);
    if (forward && reverse && index) {
      const before = await oldContent(index[1]!, cwd);
      const after = forward.kind === 'literal' ? inflate(forward.lines) : applyDelta(before, inflate(forward.lines));
      const clean = mask(after);
      if (!clean.equals(after)) {
        masked++;
        header = header.map((line) => (INDEX.test(line) ? `index ${index[1]}..${blobId(clean, index[1]!.length)}${index[3]}` : line));
        lines = [...literal(clean), '', ...literal(before), ''];
      }
    }
    await flushHeader();
    await write(`${lines.join('\n')}\n`);
    hunks = [];
    state = 'text';
  };
  const onLine = async (line: string) => {
    if (state === 'hunk') {
      if (line === '') state = 'binary';
      else hunks.at(-1)!.lines.push(line);
      return;
    }
    if (state === 'binary') {
      const hunk = HUNK.exec(line);
      if (hunk && hunks.length < 2) {
        hunks.push({ kind: hunk[1]!, size: Number(hunk[2]), lines: [] });
        state = 'hunk';
        return;
      }
      await finishBinary();
    }
    if (line.startsWith('diff --git ')) {
      await flushHeader();
      state = 'header';
    }
    if (state === 'header') {
      header.push(line);
      if (line === 'GIT binary patch') state = 'binary';
      else if (line.startsWith('--- ') || line.startsWith('@@') || line.startsWith('Binary files ')) {
        await flushHeader();
        state = 'text';
      }
      return;
    }
    await write(`${line}\n`);
  };
  try {
    let rest = '';
    for await (const chunk of createReadStream(patchFile, { encoding: 'latin1' })) {
      const parts = (rest + (chunk as string)).split('\n');
      rest = parts.pop()!;
      for (const line of parts) await onLine(line);
    }
    if (rest !== '') await onLine(rest); // git ends every line, the last too: a patch that does not gets one
    if (['hunk', 'binary'].includes(state)) await finishBinary();
    await flushHeader();
    out.end();
    await finished(out);
    if (masked > 0) await rename(tmp, patchFile);
    return masked;
  } finally {
    out.destroy();
    await rm(tmp, { force: true });
  }
}

/** Whether the patch has a binary hunk at all (a `GIT binary patch` line), read without holding it. */
async function holdsBinaryHunk(patchFile: string): Promise<boolean> {
  const marker = '\nGIT binary patch\n';
  let tail = '\n';
  for await (const chunk of createReadStream(patchFile, { encoding: 'latin1' })) {
    const text = tail + (chunk as string);
    if (text.includes(marker)) return true;
    tail = text.slice(-marker.length);
  }
  return false;
}

/** The old content a delta applies to: nothing for a new file (an id of zeros), else the blob git has. */
async function oldContent(id: string, cwd: string): Promise<Buffer> {
  if (/^0+$/.test(id)) return Buffer.alloc(0);
  return gitBytes(['cat-file', 'blob', id], { cwd });
}

function inflate(lines: readonly string[]): Buffer {
  return inflateSync(Buffer.concat(lines.map(decodeLine)));
}

/** One line of git's base85: a length character (A–Z 1–26, a–z 27–52 bytes), then 5 characters per 4 bytes. */
function decodeLine(line: string): Buffer {
  const first = line.charCodeAt(0);
  const length = first <= 90 ? first - 64 : first - 96 + 26;
  const out = Buffer.alloc(Math.ceil(length / 4) * 4);
  for (let i = 1, at = 0; at < out.length; i += 5, at += 4) {
    let value = 0;
    for (const ch of line.slice(i, i + 5)) value = value * 85 + (DIGIT.get(ch) ?? 0);
    out.writeUInt32BE(value >>> 0, at);
  }
  return out.subarray(0, length);
}

/** A `literal` hunk of `data`, as git writes one (deflated, 52 bytes a line). */
function literal(data: Buffer): string[] {
  const deflated = deflateSync(data);
  const lines = [`literal ${data.length}`];
  for (let at = 0; at < deflated.length; at += 52) {
    const part = deflated.subarray(at, at + 52);
    let line = String.fromCharCode(part.length <= 26 ? 64 + part.length : 96 + part.length - 26);
    const padded = Buffer.alloc(Math.ceil(part.length / 4) * 4);
    part.copy(padded);
    for (let i = 0; i < padded.length; i += 4) {
      let value = padded.readUInt32BE(i);
      let group = '';
      for (let d = 0; d < 5; d++) {
        group = BASE85[value % 85]! + group;
        value = Math.floor(value / 85);
      }
      line += group;
    }
    lines.push(line);
  }
  return lines;
}

/** Git's delta: two sizes, then copies from `base` (high bit set) and literal inserts (1–127 bytes). */
function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let at = 0;
  const size = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = delta[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  size(); // the base's size
  const out = Buffer.alloc(size());
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[at++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) length += delta[at++]! * 2 ** (8 * bit);
      written += base.copy(out, written, offset, offset + (length || 0x10000));
    } else {
      written += delta.copy(out, written, at, at + op);
      at += op;
    }
  }
  return out;
}

/** The id git gives a blob of `data` (SHA-1, or SHA-256 in a repository whose ids are 64 digits). */
function blobId(data: Buffer, digits: number): string {
  return createHash(digits === 64 ? 'sha256' : 'sha1')
    .update(`blob ${data.length}\0`)
    .update(data)
    .digest('hex');
}
