// What a failed try's trace.zip tells that Playwright's JSON report does not: the last URL the page under
// test showed, and that page as it looked then (a screencast frame, kept as the try's screenshot). Only
// the zip's central directory, its `*.trace` entries and one frame are read, each size-capped.
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { isRasterImage } from '../../util/raster-image.js';
import type { JsonReport } from './json-report.js';

/**
 * Fills `lastUrl` of every try that did not end as its test expected and kept a trace (classification
 * reads it; the report has no URL), and gives such a try without a screenshot the trace's frame as one:
 * Elenchos asks Playwright for no screenshots, because its `only-on-failure` photographs every passing
 * test too (it cannot know at the context's close whether the teardown will fail) and that was most of
 * what a verify cost beyond a bare run (docs/playwright.md, "Traces at the price of a bare run").
 */
export async function readTraceFacts(report: JsonReport): Promise<void> {
  for (const test of report.tests) {
    for (const result of test.results) {
      const trace = result.attachments.find((a) => a.name === 'trace' && a.path !== null);
      if (result.status === test.expectedStatus || !trace) continue;
      const facts = await readTrace(trace.path!);
      result.lastUrl = facts.lastUrl;
      result.opened = facts.opened;
      if (!facts.frame || result.attachments.some((a) => a.name === 'screenshot' && isRasterImage(a.contentType))) continue;
      const file = path.join(path.dirname(trace.path!), 'trace-last-frame.jpeg');
      try {
        await writeFile(file, facts.frame, { flag: 'wx' });
        result.attachments.push({ name: 'screenshot', contentType: 'image/jpeg', path: file });
      } catch {
        // a file of that name is already there (not ours to trust) or the disk refused: no picture
      }
    }
  }
}

// A trace entry larger than this is not read (a long test's trace; the URL is a nicety, not a verdict).
const MAX_ENTRY_BYTES = 32 * 1024 * 1024;
// Screencast frames fit in 800×600 JPEGs of tens of KB; anything larger is not taken for one.
const MAX_FRAME_BYTES = 2 * 1024 * 1024;
// The central directory of a trace: its entries are the test's calls, snapshots and resources.
const MAX_DIRECTORY_BYTES = 64 * 1024 * 1024;

export interface TraceFacts {
  lastUrl: string | null;
  /** Whether the page ever left about:blank (null when the trace shows no page). */
  opened: boolean | null;
  /** The last screencast frame of the page `lastUrl` belongs to, no later than that snapshot. */
  frame: Buffer | null;
}

interface Snapshot {
  pageId: string | null;
  url: string;
  timestamp: number;
}

/**
 * The main frame's URL in the last snapshot of the trace, whether the page ever showed anything but
 * about:blank, and that page's last screencast frame up to that snapshot (a frame of another page, such
 * as a popup, or one painted after the last recorded step is never taken).
 */
export async function readTrace(traceZip: string): Promise<TraceFacts> {
  const none = { lastUrl: null, opened: null, frame: null };
  let zip: Zip | null = null;
  try {
    zip = await openZip(traceZip);
    if (!zip) return none;
    let last: Snapshot | null = null;
    let opened = false;
    // Whether the test made a page, and whether any of its calls could have taken it off about:blank.
    let madePage = false;
    let navigating = false;
    const frames: { pageId: string; name: string; timestamp: number }[] = [];
    for (const entry of zip.entries.filter((e) => /^\d+-trace\.trace$/.test(e.name))) {
      // An entry too large or damaged is skipped; the others still count.
      const text = (await zip.read(entry, MAX_ENTRY_BYTES).catch(() => null))?.toString('utf8') ?? '';
      for (const line of text.split('\n')) {
        const event = traceEvent(line);
        if (!event) continue;
        const snapshot = event.snapshot;
        if (event.type === 'frame-snapshot' && typeof snapshot?.frameUrl === 'string' && snapshot.isMainFrame !== false) {
          const timestamp: number = typeof snapshot.timestamp === 'number' ? snapshot.timestamp : (last?.timestamp ?? 0);
          last = { pageId: typeof snapshot.pageId === 'string' ? snapshot.pageId : null, url: snapshot.frameUrl, timestamp };
          if (snapshot.frameUrl !== 'about:blank') opened = true;
        } else if (event.type === 'before' && typeof event.method === 'string') {
          if (event.method === 'newPage') madePage = true;
          else if (!STAYS_ON_PAGE.has(event.method)) navigating = true;
        } else if (event.type === 'screencast-frame' && typeof event.pageId === 'string') {
          const name = frameEntry(event);
          if (name) frames.push({ pageId: event.pageId, name, timestamp: typeof event.timestamp === 'number' ? event.timestamp : 0 });
        }
      }
    }
    // Under load Chromium may record no snapshot before the test's time runs out (a real 1.58.2 trace:
    // test/fixtures/playwright/traces/README.md). A page that was made and never given a call that could
    // navigate it is still on about:blank.
    if (!last) return madePage && !navigating ? { lastUrl: 'about:blank', opened: false, frame: null } : none;
    const end = last;
    const shown = frames
      .filter((f) => f.pageId === end.pageId && f.timestamp <= end.timestamp)
      .reduce<(typeof frames)[number] | null>((best, f) => (!best || f.timestamp >= best.timestamp ? f : best), null);
    const entry = shown ? zip.entries.find((e) => e.name === shown.name) : undefined;
    const frame = entry ? await zip.read(entry, MAX_FRAME_BYTES).catch(() => null) : null;
    return { lastUrl: end.url, opened, frame };
  } catch {
    return none;
  } finally {
    await zip?.close();
  }
}

/**
 * The zip entry holding a screencast frame's JPEG. @playwright/test 1.58.2 names it by `sha1` under
 * `resources/` (`{"sha1":"page@…-<ms>.jpeg"}`); 1.65.2 writes `{"file":"screencast/page@….jpeg"}` with no
 * `sha1` (both real traces: test/fixtures/playwright/traces/README.md). Either way the name only
 * selects an entry of the zip: nothing is read from or written to disk by it.
 */
function frameEntry(event: TraceEvent): string | null {
  if (typeof event.file === 'string' && event.file.length > 0) return event.file;
  if (typeof event.sha1 === 'string' && event.sha1.length > 0) return `resources/${event.sha1}`;
  return null;
}

/**
 * Protocol calls that cannot take a page off about:blank: element actions and reads (on about:blank they only
 * wait), waits, screenshots and closing. Anything else (goto, reload, setContent, evaluate, routes…) might.
 */
const STAYS_ON_PAGE = new Set([
  'click',
  'dblclick',
  'fill',
  'type',
  'press',
  'check',
  'uncheck',
  'hover',
  'tap',
  'focus',
  'blur',
  'selectOption',
  'setInputFiles',
  'textContent',
  'innerText',
  'innerHTML',
  'inputValue',
  'getAttribute',
  'isVisible',
  'isHidden',
  'isChecked',
  'isEnabled',
  'isDisabled',
  'isEditable',
  'waitForSelector',
  'waitForTimeout',
  'querySelector',
  'querySelectorAll',
  'queryCount',
  'expect',
  'screenshot',
  'close',
  'setViewportSize',
]);

type TraceEvent = {
  type?: string;
  method?: unknown;
  pageId?: unknown;
  sha1?: unknown;
  file?: unknown;
  timestamp?: unknown;
  snapshot?: { frameUrl?: unknown; isMainFrame?: unknown; pageId?: unknown; timestamp?: unknown };
};

/** One line of a `.trace` entry, or null (only the event types read here are parsed at all). */
function traceEvent(line: string): TraceEvent | null {
  if (!line.includes('"frame-snapshot"') && !line.includes('"screencast-frame"') && !line.includes('"before"')) return null;
  try {
    return JSON.parse(line) as TraceEvent;
  } catch {
    return null;
  }
}

interface ZipEntry {
  name: string;
  method: number;
  compressed: number;
  uncompressed: number;
  local: number;
}

interface Zip {
  entries: ZipEntry[];
  /** An entry's bytes, or null when it declares (or turns out) larger than `max` or is not stored/deflated. */
  read(entry: ZipEntry, max: number): Promise<Buffer | null>;
  close(): Promise<void>;
}

/** The central directory of a zip, read from its end; entries are read on demand, not the whole file. */
async function openZip(file: string): Promise<Zip | null> {
  const handle = await open(file, 'r');
  try {
    return await readDirectory(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function readDirectory(handle: FileHandle): Promise<Zip | null> {
  const zip: Zip = { entries: [], read: (entry, max) => readEntry(handle, size, entry, max), close: () => handle.close() };
  const { size } = await handle.stat();
  if (size < 22) return closed(zip);
  // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
  const tailLength = Math.min(size, 0xffff + 22);
  const tail = await readAt(handle, size - tailLength, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return closed(zip);
  const count = tail.readUInt16LE(eocd + 10);
  const directorySize = tail.readUInt32LE(eocd + 12);
  const directoryAt = tail.readUInt32LE(eocd + 16);
  if (directorySize > MAX_DIRECTORY_BYTES || directoryAt + directorySize > size) return closed(zip);
  const directory = await readAt(handle, directoryAt, directorySize);
  let at = 0;
  for (let n = 0; n < count && at + 46 <= directory.length && directory.readUInt32LE(at) === 0x02014b50; n++) {
    const nameLength = directory.readUInt16LE(at + 28);
    zip.entries.push({
      method: directory.readUInt16LE(at + 10),
      compressed: directory.readUInt32LE(at + 20),
      uncompressed: directory.readUInt32LE(at + 24),
      local: directory.readUInt32LE(at + 42),
      name: directory.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
  }
  return zip;
}

async function closed(zip: Zip): Promise<null> {
  await zip.close();
  return null;
}

async function readEntry(handle: FileHandle, size: number, entry: ZipEntry, max: number): Promise<Buffer | null> {
  if (entry.uncompressed > max || entry.compressed > max * 2 + 1024 || entry.local + 30 > size) return null;
  const header = await readAt(handle, entry.local, 30);
  if (header.readUInt32LE(0) !== 0x04034b50) return null;
  const start = entry.local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  const data = await readAt(handle, start, Math.min(entry.compressed, Math.max(0, size - start)));
  if (entry.method === 0) return data.length <= max ? data : null;
  if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: max });
  return null;
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
