// Redaction on a disk that fills: a real small tmpfs (root only; skipped where mounting is not
// allowed). The temporary copy cannot be written whole, whether the disk fills in the middle of the copy or
// on its very last write: the call rejects with ENOSPC, the file is left as it was (never a cut copy in its
// place), no temporary copy is left, and reading stops where writing failed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/evidence/redact.js';
import { tempDir } from '../helpers/temp.js';

const KB = 1024;
const MB = 1024 * KB;
const SECRET = 's3cr3t-value';

const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
});

const PAGE = 4 * KB;
const pages = (bytes: number) => Math.ceil(bytes / PAGE);

/** A tmpfs of `count` 4 KB pages; null when this machine does not allow one. */
function smallDisk(count: number): string | null {
  const dir = path.join(tempDir('elenchos-disk-'), 'disk');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${count * 4}k`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  mounted.push(dir);
  return dir;
}

const canMount = (() => {
  const dir = smallDisk(16);
  if (dir) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  mounted.length = 0;
  return dir !== null;
})();

/** Bytes this process has read so far (any file or pipe). */
const bytesRead = () => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

/** Writes `content` to a file on a disk with room for `spare` pages more, redacts it, and says what happened. */
async function redactOnFullDisk(name: string, content: Buffer, spare: number) {
  const disk = smallDisk(pages(content.length) + spare);
  const file = path.join(disk!, name);
  writeFileSync(file, content);
  const before = bytesRead();
  const error = await new Redactor({ values: [SECRET] }).redactFile(file).then(
    () => null,
    (e: unknown) => e,
  );
  const read = bytesRead() - before;
  return { error, read, after: readFileSync(file), left: readdirSync(disk!) };
}

// Text lines with a secret each; a binary file is the same with a NUL byte in front.
const lines = (size: number) => Buffer.from(`k=${SECRET} ${'x'.repeat(80)}\n`.repeat(Math.ceil(size / 96)).slice(0, size));
const binary = (size: number) => Buffer.concat([Buffer.from([0]), lines(size - 1)]);

describe.skipIf(!canMount)('a disk that fills while a file is redacted (a real tmpfs)', () => {
  it.each([
    ['text', 'agent.log', lines],
    ['binary', 'trace.bin', binary],
  ])(
    '%s: full in the middle of the copy, the call rejects, the file is kept whole, and reading stops',
    async (_kind, name, make) => {
      // 4 MB with room for 512 KB more: the copy fails after about 512 KB of it.
      const content = make(4 * MB);
      const { error, read, after, left } = await redactOnFullDisk(name, content, pages(512 * KB));
      expect(error).toMatchObject({ code: 'ENOSPC' });
      expect(after.equals(content)).toBe(true);
      expect(left).toEqual([name]);
      // It stops reading once a write failed, rather than reading (and scanning) the other 3.5 MB for nothing.
      expect(read).toBeLessThan(2 * MB);
    },
    120_000,
  );

  it.each([
    // One line without a newline, under 1 MB: written in one write, at the end.
    ['text', 'agent.log', Buffer.from(`k=${SECRET} ${'x'.repeat(600 * KB)}`)],
    // The last 8 KB of a binary file are written last, after the rest.
    ['binary', 'trace.bin', binary(600 * KB)],
  ])(
    '%s: full on the last write, the call still rejects and the file is kept whole',
    async (_kind, name, content) => {
      // Room for the copy but its last page (4 KB).
      const { error, after, left } = await redactOnFullDisk(name, content, pages(content.length) - 1);
      expect(error).toMatchObject({ code: 'ENOSPC' });
      expect(after.equals(content)).toBe(true);
      expect(left).toEqual([name]);
    },
    120_000,
  );
});
