// What Elenchos takes from a failed try's trace.zip: the page's last URL and, as the try's screenshot,
// the last screencast frame (Elenchos asks Playwright for no screenshots: its only-on-failure mode
// photographs every passing test). A real trace, test/fixtures/playwright/traces/README.md.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonReport, ReportResult } from '../../src/verifiers/playwright/json-report.js';
import { readTrace, readTraceFacts } from '../../src/verifiers/playwright/trace-url.js';
import { writeZip as writeZipParts } from '../helpers/tiny-zip.js';

const TRACE = new URL('../fixtures/playwright/traces/missing-button.zip', import.meta.url).pathname;
// The same failure under @playwright/test 1.65.2, whose frames are `{"file":"screencast/…"}` with no sha1.
const TRACE_165 = new URL('../fixtures/playwright/traces/missing-button-1.65.zip', import.meta.url).pathname;
// A spec that clicked on about:blank, traced under load: Chromium recorded no frame snapshot at all.
const TRACE_NO_SNAPSHOT = new URL('../fixtures/playwright/traces/no-page-no-snapshot.zip', import.meta.url).pathname;
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A try whose trace is a copy of the fixture in a folder of its own (Playwright's per-try output dir). */
function tryWithTrace(status: string, extra: ReportResult['attachments'] = [], trace = TRACE): ReportResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-trace-'));
  dirs.push(dir);
  copyFileSync(trace, path.join(dir, 'trace.zip'));
  return {
    status,
    retry: 1,
    durationMs: 2000,
    errors: [],
    attachments: [{ name: 'trace', contentType: 'application/zip', path: path.join(dir, 'trace.zip') }, ...extra],
    lastUrl: null,
  };
}

function reportOf(...results: ReportResult[]): JsonReport {
  return reportExpecting('passed', ...results);
}

function reportExpecting(expectedStatus: string, ...results: ReportResult[]): JsonReport {
  const test = { title: 't', describePath: [], projectName: '', file: 'x.spec.ts', line: 1, column: 1, tags: [], annotations: [] };
  return { errors: [], tests: [{ ...test, status: 'unexpected', expectedStatus, results }] };
}

describe('a failed try read from its trace', () => {
  it('gets the last URL and the latest screencast frame as its screenshot', async () => {
    const failed = tryWithTrace('timedOut');
    await readTraceFacts(reportOf(failed));
    expect(failed).toMatchObject({ lastUrl: 'http://127.0.0.1:44511/', opened: true });
    const shot = failed.attachments.find((a) => a.name === 'screenshot');
    expect(shot).toMatchObject({ contentType: 'image/jpeg' });
    const bytes = readFileSync(shot!.path!);
    // The last frame painted before the last snapshot (the click that waited), not the first one.
    expect(bytes.subarray(0, 3)).toEqual(JPEG);
    expect(bytes.length).toBe(5572);
  });

  it('gets them from a trace Playwright 1.65 wrote (frames named by file under screencast/, no sha1)', async () => {
    const failed = tryWithTrace('failed', [], TRACE_165);
    await readTraceFacts(reportOf(failed));
    expect(failed).toMatchObject({ lastUrl: 'http://127.0.0.1:44512/', opened: true });
    const shot = failed.attachments.find((a) => a.name === 'screenshot');
    expect(shot).toMatchObject({ contentType: 'image/jpeg' });
    const bytes = readFileSync(shot!.path!);
    // Of its four frames, the last one painted before the last snapshot (5625 bytes), not the first.
    expect(bytes.subarray(0, 3)).toEqual(JPEG);
    expect(bytes.length).toBe(5625);
  });

  it('leaves a passed try alone and adds no second picture to a try that has one', async () => {
    const passed = tryWithTrace('passed');
    const own = { name: 'screenshot', contentType: 'image/png', path: '/elsewhere/test-failed-1.png' };
    const pictured = tryWithTrace('failed', [own]);
    await readTraceFacts(reportOf(passed, pictured));
    expect(passed.attachments).toHaveLength(1);
    expect(passed.lastUrl).toBeNull();
    expect(pictured.attachments.filter((a) => a.name === 'screenshot')).toEqual([own]);
    expect(pictured.lastUrl).toBe('http://127.0.0.1:44511/');
  });

  it('pictures a test.fail() test that passed, and a try whose only image is not a screenshot', async () => {
    const unexpected = tryWithTrace('passed');
    const chart = { name: 'chart', contentType: 'image/svg+xml', path: '/elsewhere/chart.svg' };
    const charted = tryWithTrace('failed', [chart]);
    await readTraceFacts(reportExpecting('failed', unexpected));
    await readTraceFacts(reportOf(charted));
    expect(unexpected.attachments.map((a) => a.name)).toEqual(['trace', 'screenshot']);
    expect(charted.attachments.map((a) => a.name)).toEqual(['trace', 'chart', 'screenshot']);
  });

  it('never takes a file already where the frame would go for the frame', async () => {
    const failed = tryWithTrace('failed');
    const planted = path.join(path.dirname(failed.attachments[0]!.path!), 'trace-last-frame.jpeg');
    writeFileSync(planted, 'not the page');
    await readTraceFacts(reportOf(failed));
    expect(failed.attachments.map((a) => a.name)).toEqual(['trace']);
    expect(readFileSync(planted, 'utf8')).toBe('not the page');
  });

  it('reads nothing from a file that is not a zip, and a missing trace is no picture', async () => {
    const failed = tryWithTrace('failed');
    writeFileSync(failed.attachments[0]!.path!, 'PK not really');
    expect(await readTrace(failed.attachments[0]!.path!)).toEqual({ lastUrl: null, opened: null, frame: null });
    await readTraceFacts(reportOf(failed));
    expect(failed.attachments).toHaveLength(1);
    expect(existsSync(path.join(path.dirname(failed.attachments[0]!.path!), 'trace-last-frame.jpeg'))).toBe(false);
  });

  it('takes the frame of the page the last snapshot shows, painted no later than it', async () => {
    // Page A is under test; a popup B paints last; A paints once more after the last step (an afterEach).
    const events = [
      snap('page@a', 'http://app/', 10),
      frame('page@b', 'page@b-1.jpeg', 40),
      frame('page@a', 'page@a-3.jpeg', 30),
      frame('page@a', 'page@a-2.jpeg', 20),
      snap('page@b', 'http://app/popup', 35, false),
      snap('page@a', 'http://app/cart', 32),
      frame('page@a', 'page@a-4.jpeg', 50),
    ];
    const zip = writeZip({
      'resources/page@a-4.jpeg': 'A after the last step',
      'resources/page@a-2.jpeg': 'A early',
      'resources/page@b-1.jpeg': 'B, the popup',
      'resources/page@a-3.jpeg': 'A at the failure',
      '0-trace.trace': events.join('\n'),
    });
    const facts = await readTrace(zip);
    expect(facts.lastUrl).toBe('http://app/cart');
    expect(facts.frame?.toString()).toBe('A at the failure');
  });

  it('reads frames named either way in one trace, each where its shape says', async () => {
    const events = [
      snap('page@a', 'http://app/', 10),
      frame('page@a', 'page@a-1.jpeg', 20),
      fileFrame('page@a', 'screencast/page@a-2.jpeg', 30),
      snap('page@a', 'http://app/cart', 40),
    ];
    const zip = writeZip({
      'resources/page@a-1.jpeg': 'old shape',
      'screencast/page@a-2.jpeg': 'new shape',
      'resources/screencast/page@a-2.jpeg': 'not where the new shape points',
      '0-trace.trace': events.join('\n'),
    });
    expect((await readTrace(zip)).frame?.toString()).toBe('new shape');
    const older = writeZip({
      'resources/page@a-1.jpeg': 'old shape',
      'page@a-1.jpeg': 'not under resources/',
      '0-trace.trace': [snap('page@a', 'http://app/', 10), frame('page@a', 'page@a-1.jpeg', 20), snap('page@a', 'http://app/', 25)].join(
        '\n',
      ),
    });
    expect((await readTrace(older)).frame?.toString()).toBe('old shape');
  });

  it('knows a page never opened when the trace has no snapshot and no call that could navigate (a real trace)', async () => {
    expect(await readTrace(TRACE_NO_SNAPSHOT)).toEqual({ lastUrl: 'about:blank', opened: false, frame: null });
  });

  it('claims nothing without a snapshot when a call could have navigated, or no page was made', async () => {
    const before = (method: string) => JSON.stringify({ type: 'before', callId: method, class: 'Frame', method });
    for (const method of ['goto', 'setContent', 'evaluateExpression', 'reload']) {
      const zip = writeZip({ '0-trace.trace': [before('newPage'), before(method), before('click')].join('\n') });
      expect(await readTrace(zip), method).toEqual({ lastUrl: null, opened: null, frame: null });
    }
    const noPage = writeZip({ '0-trace.trace': before('click') });
    expect(await readTrace(noPage)).toEqual({ lastUrl: null, opened: null, frame: null });
  });

  it('takes no frame that names no entry, or an entry the zip does not have', async () => {
    const zip = writeZip({
      'screencast/page@a-1.jpeg': 'painted',
      '0-trace.trace': [
        snap('page@a', 'http://app/', 10),
        fileFrame('page@a', 'screencast/page@a-1.jpeg', 20),
        JSON.stringify({ type: 'screencast-frame', pageId: 'page@a', timestamp: 25 }),
        fileFrame('page@a', 'screencast/page@a-gone.jpeg', 28),
        snap('page@a', 'http://app/', 30),
      ].join('\n'),
    });
    // The latest frame names an entry that is not there: no picture rather than an older one passed off as it.
    expect(await readTrace(zip)).toEqual({ lastUrl: 'http://app/', opened: true, frame: null });
  });

  it('gives no picture when that page painted nothing by then, and a damaged line costs nothing else', async () => {
    const zip = writeZip({
      'resources/page@a-9.jpeg': 'after',
      '0-trace.trace': [snap('page@a', 'http://app/', 10), '{"type":"frame-snapshot", broken', frame('page@a', 'page@a-9.jpeg', 90)].join(
        '\n',
      ),
    });
    expect(await readTrace(zip)).toEqual({ lastUrl: 'http://app/', opened: true, frame: null });
  });
});

const snap = (pageId: string, frameUrl: string, timestamp: number, isMainFrame = true) =>
  JSON.stringify({ type: 'frame-snapshot', snapshot: { pageId, frameUrl, isMainFrame, timestamp } });
const frame = (pageId: string, sha1: string, timestamp: number) => JSON.stringify({ type: 'screencast-frame', pageId, sha1, timestamp });
const fileFrame = (pageId: string, file: string, timestamp: number) =>
  JSON.stringify({ type: 'screencast-frame', pageId, file, timestamp });

/** A zip of deflated entries, in the given order (the reader checks no CRC, so none is computed). */
const writeZip = (files: Record<string, string>): string => writeZipParts(Object.entries(files).map(([name, text]) => ({ name, text })));
