// A child printing one 50 MB line without a newline: the spawn helper's line listener gets
// it cut at MAX_LINE_LENGTH, the files keep every byte, and the reading process's memory stays bounded.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process/spawn.js';
import { MAX_LINE_LENGTH } from '../../src/util/ndjson-reader.js';
import { tempDir } from '../helpers/temp.js';

const MB = 1024 * 1024;
const PIECES = 50;
/** 1 MB of every byte value but the newline, so the line is also invalid UTF-8 in places. */
const PIECE = Buffer.from(Array.from({ length: MB }, (_, i) => (i % 255 >= 10 ? (i % 255) + 1 : i % 255)));
const TRAILER = '\n{"after":1}\n';

/** The child: 50 pieces with no newline between them, then a line after, waiting for the pipe each time. */
const WRITER = `
const fs = require('node:fs');
const piece = fs.readFileSync(process.argv[1]);
let i = 0;
(function next() {
  while (i < ${PIECES}) {
    i++;
    if (!process.stdout.write(piece)) return process.stdout.once('drain', next);
  }
  process.stdout.write(${JSON.stringify(TRAILER)});
})();
`;

function status(field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line!.split(/\s+/)[1]) * 1024;
}

/**
 * How far this process's resident memory rose above its level at the start while `work` ran: the
 * kernel's own high-water mark (VmHWM), reset first through /proc/self/clear_refs, so no peak between
 * two samples is missed; where that reset is refused, sampling every 5 ms (which can only see less).
 */
async function peakGrowth(work: () => Promise<unknown>): Promise<number> {
  let reset = true;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    reset = false;
  }
  const before = status('VmRSS');
  let sampled = before;
  const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 5);
  await work().finally(() => clearInterval(sampler));
  return (reset ? status('VmHWM') : sampled) - before;
}

async function sha256(source: NodeJS.ReadableStream | Buffer[]): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of source) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe.skipIf(process.platform !== 'linux')('a child printing a 50 MB line without a newline', () => {
  it('the listener gets it cut at the cap, the files keep every byte, and memory grows by far less than the line', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'piece.bin'), PIECE);
    const files = { stdoutFile: path.join(dir, 'out.ndjson'), logFile: path.join(dir, 'both.log') };
    const lengths: number[] = [];
    const after: string[] = [];
    let result: Awaited<ReturnType<typeof runProcess>> | undefined;
    const growth = await peakGrowth(async () => {
      result = await runProcess(process.execPath, ['-e', WRITER, path.join(dir, 'piece.bin')], {
        cwd: dir,
        env: { PATH: process.env.PATH },
        ...files,
        // Keep only the length: holding the delivered line would measure the test, not the helper.
        onStdoutLine: (line) => {
          lengths.push(line.length);
          if (line.length < 100) after.push(line);
        },
      });
    });
    expect(result).toMatchObject({ exitCode: 0, outputCapped: false });
    expect(lengths).toEqual([MAX_LINE_LENGTH, 11]);
    expect(after).toEqual(['{"after":1}']);

    const expected = await sha256([...Array<Buffer>(PIECES).fill(PIECE), Buffer.from(TRAILER)]);
    expect(await sha256(createReadStream(files.stdoutFile))).toBe(expected);
    expect(await sha256(createReadStream(files.logFile))).toBe(expected);

    // execa's line splitting held the whole line and its copies: 102-105 MB more here. Cut at the cap it
    // is 13-21 MB (4 Mi characters, chunks in flight, garbage not yet collected); 64 MB leaves room for both.
    expect(growth).toBeLessThan(64 * MB);
  }, 90_000);
});
