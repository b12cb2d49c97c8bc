// What Elenchos takes from a failed try's trace.zip: the page's last URL and, as the try's screenshot,
// the last screencast frame (Elenchos asks Playwright for no screenshots: its only-on-failure mode
// photographs every passing test). A real trace, test/fixtures/playwright/traces/README.md.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonReport, ReportResult } from '../../src/verifiers/playwright/json-report.js';
import { readTrace, readTraceFacts } from '../../src/verifiers/playwright/trace-url.js';

const TRACE = new URL('../fixtures/playwright/traces/missing-button.zip', import.meta.url).pathname;
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A try whose trace is a copy of the fixture in a folder of its own (Playwright's per-try output dir). */
function tryWithTrace(status: string, extra: ReportResult['attachments'] = []): ReportResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-trace-'));
  dirs.push(dir);
  copyFileSync(TRACE, path.join(dir, 'trace.zip'));
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
  const test = { title: 't', describePath: [], projectName: '', file: 'x.spec.ts', line: 1, column: 1, tags: [], annotations: [] };
  return { errors: [], tests: [{ ...test, status: 'unexpected', expectedStatus: 'passed', results }] };
}

describe('a failed try read from its trace', () => {
  it('gets the last URL and the latest screencast frame as its screenshot', async () => {
    const failed = tryWithTrace('timedOut');
    await readTraceFacts(reportOf(failed));
    expect(failed).toMatchObject({ lastUrl: 'http://127.0.0.1:44511/', opened: true });
    const shot = failed.attachments.find((a) => a.name === 'screenshot');
    expect(shot).toMatchObject({ contentType: 'image/jpeg' });
    const bytes = readFileSync(shot!.path!);
    // The last of six frames (by its timestamp), not the first or the largest.
    expect(bytes.subarray(0, 3)).toEqual(JPEG);
    expect(bytes.length).toBe(5572);
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
    expect(await readTrace(failed.attachments[0]!.path!)).toEqual({ lastUrl: null, opened: null, lastFrame: null });
    await readTraceFacts(reportOf(failed));
    expect(failed.attachments).toHaveLength(1);
    expect(existsSync(path.join(path.dirname(failed.attachments[0]!.path!), 'trace-last-frame.jpeg'))).toBe(false);
  });
});
