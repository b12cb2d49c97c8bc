// What a failed try's trace.zip tells that Playwright's JSON report does not: the last URL the page under
// test showed, and that page as it looked then (a screencast frame, kept as the try's screenshot). Only
// the zip's central directory, its `*.trace` entries and one frame are read, each size-capped.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PLAYWRIGHT_FILES } from '../../evidence/layout.js';
import { isRasterImage } from '../../util/raster-image.js';
import type { JsonReport } from './json-report.js';
import { openTraceZip, type TraceZip } from './trace-zip.js';

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
      const file = path.join(path.dirname(trace.path!), PLAYWRIGHT_FILES.traceLastFrame);
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
  let zip: TraceZip | null = null;
  try {
    zip = await openTraceZip(traceZip);
    if (!zip) return none;
    let last: Snapshot | null = null;
    let opened = false;
    // Whether the test made a page, and whether any of its calls could have taken it off about:blank.
    let madePage = false;
    let navigating = false;
    const frames: { pageId: string; name: string; timestamp: number }[] = [];
    for (const name of zip.names.filter((n) => /^\d+-trace\.trace$/.test(n))) {
      // An entry too large or damaged is skipped; the others still count.
      const text = (await zip.read(name, MAX_ENTRY_BYTES))?.toString('utf8') ?? '';
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
    const frame = shown ? await zip.read(shown.name, MAX_FRAME_BYTES) : null;
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
