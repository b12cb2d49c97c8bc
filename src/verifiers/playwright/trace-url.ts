// What a failed try's trace.zip tells that Playwright's JSON report does not: the last URL the page under
// test showed, and the page itself at the end (the last screencast frame, kept as the try's screenshot).
// Only the zip's central directory, its `*.trace` entries and its last frame are read, size-capped.
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { JsonReport } from './json-report.js';

/**
 * Fills `lastUrl` of every failed try that kept a trace (classification reads it; the report has no URL),
 * and gives a failed try without a screenshot the trace's last frame as one: Elenchos asks Playwright for
 * no screenshots, because its `only-on-failure` photographs every passing test too (it cannot know at
 * the context's close whether the teardown will fail) and that was most of what a verify cost beyond a
 * bare run (docs/playwright.md, "Traces at the price of a bare run").
 */
export async function readTraceFacts(report: JsonReport): Promise<void> {
  for (const test of report.tests) {
    for (const result of test.results) {
      const trace = result.attachments.find((a) => a.name === 'trace' && a.path !== null);
      if (result.status === 'passed' || !trace) continue;
      const facts = await readTrace(trace.path!);
      result.lastUrl = facts.lastUrl;
      result.opened = facts.opened;
      if (!facts.lastFrame || result.attachments.some((a) => a.contentType?.startsWith('image/'))) continue;
      const file = path.join(path.dirname(trace.path!), 'trace-last-frame.jpeg');
      try {
        await writeFile(file, facts.lastFrame, { flag: 'wx' });
        result.attachments.push({ name: 'screenshot', contentType: 'image/jpeg', path: file });
      } catch {
        // a file of that name is already there (not ours to trust) or the disk refused: no picture
      }
    }
  }
}

// A trace entry larger than this is not read (a long test's trace; the URL is a nicety, not a verdict).
const MAX_ENTRY_BYTES = 32 * 1024 * 1024;
const MAX_FILE_BYTES = 256 * 1024 * 1024;
// A screencast frame is a JPEG of at most 800x800; anything larger is not taken for one.
const MAX_FRAME_BYTES = 2 * 1024 * 1024;
// `resources/page@<page id>-<ms since epoch>.jpeg`: the trace's screencast frames.
const FRAME = /^resources\/page@[0-9a-f]+-(\d+)\.jpeg$/;

interface TraceFacts {
  lastUrl: string | null;
  opened: boolean | null;
  lastFrame: Buffer | null;
}

/**
 * The main frame's URL in the last snapshot of the trace, whether it ever showed a page (not
 * about:blank), and the latest screencast frame.
 */
export async function readTrace(traceZip: string): Promise<TraceFacts> {
  try {
    let last: string | null = null;
    let opened = false;
    const { texts, lastFrame } = await readTraceEntries(traceZip);
    for (const text of texts) {
      for (const line of text.split('\n')) {
        if (!line.includes('"frame-snapshot"')) continue;
        const event = JSON.parse(line) as { type?: string; snapshot?: { frameUrl?: unknown; isMainFrame?: unknown } };
        const snapshot = event.snapshot;
        if (event.type === 'frame-snapshot' && typeof snapshot?.frameUrl === 'string' && snapshot.isMainFrame !== false) {
          last = snapshot.frameUrl;
          if (last !== 'about:blank') opened = true;
        }
      }
    }
    return { lastUrl: last, opened: last === null ? null : opened, lastFrame };
  } catch {
    return { lastUrl: null, opened: null, lastFrame: null };
  }
}

/** The text of every `<n>-trace.trace` entry (the browser side: frames, snapshots, logs), and the latest screencast frame. */
async function readTraceEntries(file: string): Promise<{ texts: string[]; lastFrame: Buffer | null }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const none = { texts: [], lastFrame: null };
    if (size > MAX_FILE_BYTES || size < 22) return none;
    const buffer = Buffer.alloc(size);
    await handle.read(buffer, 0, size, 0);
    // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
    let eocd = -1;
    for (let i = size - 22; i >= Math.max(0, size - 22 - 0xffff); i--) {
      if (buffer.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) return none;
    const count = buffer.readUInt16LE(eocd + 10);
    let at = buffer.readUInt32LE(eocd + 16);
    const texts: string[] = [];
    let frame: { at: number; method: number; data: Buffer } | null = null;
    for (let n = 0; n < count && at + 46 <= size && buffer.readUInt32LE(at) === 0x02014b50; n++) {
      const method = buffer.readUInt16LE(at + 10);
      const compressed = buffer.readUInt32LE(at + 20);
      const uncompressed = buffer.readUInt32LE(at + 24);
      const nameLength = buffer.readUInt16LE(at + 28);
      const extraLength = buffer.readUInt16LE(at + 30);
      const commentLength = buffer.readUInt16LE(at + 32);
      const local = buffer.readUInt32LE(at + 42);
      const name = buffer.toString('utf8', at + 46, at + 46 + nameLength);
      at += 46 + nameLength + extraLength + commentLength;
      const frameAt = Number(FRAME.exec(name)?.[1] ?? -1);
      const isText = /^\d+-trace\.trace$/.test(name);
      if ((!isText && frameAt < 0) || local + 30 > size) continue;
      const start = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
      const data = buffer.subarray(start, start + compressed);
      if (isText && uncompressed <= MAX_ENTRY_BYTES) texts.push(inflate(method, data, MAX_ENTRY_BYTES));
      else if (frameAt >= 0 && uncompressed <= MAX_FRAME_BYTES && (!frame || frameAt >= frame.at)) frame = { at: frameAt, method, data };
    }
    let lastFrame: Buffer | null = null;
    try {
      lastFrame = frame ? inflateBytes(frame.method, frame.data, MAX_FRAME_BYTES) : null;
    } catch {
      // a damaged frame: the URL still counts, the picture is left out
    }
    return { texts, lastFrame };
  } finally {
    await handle.close();
  }
}

function inflate(method: number, data: Buffer, max: number): string {
  return inflateBytes(method, data, max)?.toString('utf8') ?? '';
}

/** A zip entry's bytes: stored (0) or deflated (8); any other method is not read. */
function inflateBytes(method: number, data: Buffer, max: number): Buffer | null {
  if (method === 0) return Buffer.from(data);
  if (method === 8) return inflateRawSync(data, { maxOutputLength: max });
  return null;
}
