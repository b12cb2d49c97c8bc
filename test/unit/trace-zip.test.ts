// The trace zip reader under hostile or odd zips: a bomb, damaged entries, a trace past 256 MB, and no
// file descriptor left open on any path. The trace is written by the Playwright run the agent's app
// drives, so its bytes are not ours to trust.
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readTrace } from '../../src/verifiers/playwright/trace-url.js';
import { openTraceZip } from '../../src/verifiers/playwright/trace-zip.js';
import { tempDir } from '../helpers/temp.js';
import { writeZip } from '../helpers/tiny-zip.js';

const snap = (frameUrl: string, timestamp: number) =>
  JSON.stringify({ type: 'frame-snapshot', snapshot: { pageId: 'page@a', frameUrl, isMainFrame: true, timestamp } });
const frame = (file: string, timestamp: number) => JSON.stringify({ type: 'screencast-frame', pageId: 'page@a', file, timestamp });
const TRACE = [snap('http://app/', 10), frame('screencast/a.jpeg', 20), snap('http://app/cart', 30)].join('\n');

/** The descriptors of this process open on `file`. */
const openOn = (file: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });

describe('the trace zip reader', () => {
  it('cuts off an entry that declares a small size and inflates huge (a zip bomb), and reads the others', async () => {
    // 16 MB of zeros deflate to about 16 KB; the headers say 1 KB (and then 1 MB, under the 2 MB frame cap).
    const bomb = deflateRawSync(Buffer.alloc(16 * 1024 * 1024));
    const file = writeZip([
      { name: '0-trace.trace', text: TRACE },
      { name: '1-trace.trace', raw: bomb, declared: 1024 },
      { name: 'screencast/a.jpeg', raw: bomb, declared: 1024 * 1024 },
      { name: 'screencast/b.jpeg', text: 'painted' },
    ]);
    const zip = (await openTraceZip(file))!;
    try {
      expect(await zip.read('1-trace.trace', 32 * 1024 * 1024)).toBeNull();
      expect(await zip.read('screencast/a.jpeg', 2 * 1024 * 1024)).toBeNull();
      expect((await zip.read('screencast/b.jpeg', 2 * 1024 * 1024))?.toString()).toBe('painted');
    } finally {
      await zip.close();
    }
    // The bomb is the picture the trace names: no picture, but the URL still stands.
    expect(await readTrace(file)).toEqual({ lastUrl: 'http://app/cart', opened: true, frame: null });
  });

  it('never opens an entry that declares more than its cap', async () => {
    const file = writeZip([{ name: 'big.jpeg', text: 'x'.repeat(4096) }]);
    const zip = (await openTraceZip(file))!;
    try {
      expect(await zip.read('big.jpeg', 4095)).toBeNull();
      expect((await zip.read('big.jpeg', 4096))?.length).toBe(4096);
      expect(await zip.read('absent.jpeg', 4096)).toBeNull();
    } finally {
      await zip.close();
    }
  });

  it('a damaged entry costs only itself: a bad local header, data that does not inflate', async () => {
    const file = writeZip([
      { name: '0-trace.trace', text: TRACE },
      { name: '1-trace.trace', raw: Buffer.from('not deflate data at all, \xff\xff\xff'), declared: 100 },
      { name: '2-trace.trace', text: snap('http://app/elsewhere', 5), badLocal: true },
      { name: 'screencast/a.jpeg', text: 'the page' },
    ]);
    expect(await readTrace(file)).toEqual({ lastUrl: 'http://app/cart', opened: true, frame: Buffer.from('the page') });
  });

  it('reads a trace larger than 256 MB: only its directory and the entries it needs', async () => {
    const file = writeZip(
      [
        { name: '0-trace.trace', text: TRACE },
        { name: 'screencast/a.jpeg', text: 'the page' },
      ],
      300 * 1024 * 1024,
    );
    expect(await readTrace(file)).toEqual({ lastUrl: 'http://app/cart', opened: true, frame: Buffer.from('the page') });
  });

  it.runIf(process.platform === 'linux')('leaves no file descriptor open, whatever the zip', async () => {
    const bomb = deflateRawSync(Buffer.alloc(8 * 1024 * 1024));
    const files = [
      writeZip([
        { name: '0-trace.trace', text: TRACE },
        { name: 'screencast/a.jpeg', text: 'the page' },
      ]),
      writeZip([{ name: '0-trace.trace', raw: bomb, declared: 10 }]),
      writeZip([{ name: '0-trace.trace', text: TRACE, badLocal: true }]),
    ];
    const notZip = path.join(tempDir(), 'trace.zip');
    writeFileSync(notZip, 'PK not really');
    files.push(notZip);
    for (const file of files) {
      await readTrace(file);
      expect(openOn(file), file).toEqual([]);
    }
  });
});
