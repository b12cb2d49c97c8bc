// The last URL the page under test showed, read from a test's trace.zip (Playwright's JSON report has
// no page URL). Only the zip's central directory and its `*.trace` entries are read, size-capped.
import { open } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import type { JsonReport } from './json-report.js';

/** Fills `lastUrl` of every failed try that kept a trace (classification reads it; the report has no URL). */
export async function readLastUrls(report: JsonReport): Promise<void> {
  for (const test of report.tests) {
    for (const result of test.results) {
      const trace = result.attachments.find((a) => a.name === 'trace' && a.path !== null);
      if (result.status !== 'passed' && trace) Object.assign(result, await readPageUrls(trace.path!));
    }
  }
}

// A trace entry larger than this is not read (a long test's trace; the URL is a nicety, not a verdict).
const MAX_ENTRY_BYTES = 32 * 1024 * 1024;
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** The main frame's URL in the last snapshot of the trace, and whether it ever showed a page (not about:blank). */
export async function readPageUrls(traceZip: string): Promise<{ lastUrl: string | null; opened: boolean | null }> {
  try {
    let last: string | null = null;
    let opened = false;
    for (const text of await readTraceEntries(traceZip)) {
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
    return { lastUrl: last, opened: last === null ? null : opened };
  } catch {
    return { lastUrl: null, opened: null };
  }
}

/** The text of every `<n>-trace.trace` entry (the browser side: frames, snapshots, logs). */
async function readTraceEntries(file: string): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES || size < 22) return [];
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
    if (eocd < 0) return [];
    const count = buffer.readUInt16LE(eocd + 10);
    let at = buffer.readUInt32LE(eocd + 16);
    const texts: string[] = [];
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
      if (!/^\d+-trace\.trace$/.test(name) || uncompressed > MAX_ENTRY_BYTES || local + 30 > size) continue;
      const start = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
      const data = buffer.subarray(start, start + compressed);
      if (method === 0) texts.push(data.toString('utf8'));
      else if (method === 8) texts.push(inflateRawSync(data, { maxOutputLength: MAX_ENTRY_BYTES }).toString('utf8'));
    }
    return texts;
  } finally {
    await handle.close();
  }
}
