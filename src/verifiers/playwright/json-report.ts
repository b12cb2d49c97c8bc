// Reads Playwright's JSON reporter output into a flat, typed list of tests (only what we classify on).
import { EVIDENCE_FILE_LIMIT, parseJsonText } from '../../util/json-file.js';
import { readTestFileText } from '../../util/regular-file.js';
import { PLAYWRIGHT_FILES } from '../../evidence/layout.js';

export interface ReportAttachment {
  name: string;
  contentType: string | null;
  path: string | null;
}

export interface ReportError {
  message: string;
  /** `file:line:column` where the error was thrown in the spec. */
  location: string | null;
}

export interface ReportResult {
  /** passed | failed | timedOut | skipped | interrupted */
  status: string;
  retry: number;
  durationMs: number | null;
  errors: ReportError[];
  attachments: ReportAttachment[];
  /** The page's last URL, read from this try's trace after parsing (null when unknown). */
  lastUrl: string | null;
  /** Whether the trace shows the page ever left about:blank (null without a trace). */
  opened?: boolean | null;
}

export interface ReportTest {
  title: string;
  /** Titles of the enclosing `test.describe` blocks, outermost first (the file left out). */
  describePath: string[];
  /** The Playwright project it ran in ('' when the config has none). */
  projectName: string;
  file: string;
  line: number;
  column: number;
  tags: string[];
  annotations: { type: string; description: string | null }[];
  /** expected | unexpected | flaky | skipped */
  status: string;
  /** What the test declared it would do: passed, or failed for `test.fail()`. */
  expectedStatus: string;
  results: ReportResult[];
}

export interface JsonReport {
  tests: ReportTest[];
  /** Errors outside any test (a spec that does not compile, no tests found, a global setup failure). */
  errors: ReportError[];
}

export type ReadReportResult = { ok: true; report: JsonReport } | { ok: false; reason: string };

/** Reads and flattens the report file; a missing or malformed report is a reason, not a throw. */
export async function readJsonReport(file: string): Promise<ReadReportResult> {
  let text: string;
  try {
    text = await readTestFileText(file, PLAYWRIGHT_FILES.report, EVIDENCE_FILE_LIMIT);
  } catch (error) {
    const missing = (error as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT';
    return {
      ok: false,
      reason: missing ? 'Playwright wrote no JSON report' : `Playwright's JSON report cannot be read (${(error as Error).message})`,
    };
  }
  let raw: unknown;
  try {
    raw = parseJsonText(text, PLAYWRIGHT_FILES.report);
  } catch (error) {
    return { ok: false, reason: `Playwright's JSON report is not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(raw) || !Array.isArray(raw.suites)) return { ok: false, reason: "Playwright's JSON report has no suites" };
  return { ok: true, report: parseJsonReport(raw) };
}

/** Flattens nested suites into tests sorted by file, line and column. */
export function parseJsonReport(raw: Record<string, unknown>): JsonReport {
  const tests: ReportTest[] = [];
  const walk = (suite: unknown, file: string, describePath: string[]) => {
    if (!isObject(suite)) return;
    const here = str(suite.file) ?? file;
    for (const spec of arr(suite.specs)) {
      if (!isObject(spec)) continue;
      for (const test of arr(spec.tests)) {
        if (!isObject(test)) continue;
        tests.push({
          title: str(spec.title) ?? '',
          describePath,
          projectName: str(test.projectName) ?? '',
          file: str(spec.file) ?? here,
          line: num(spec.line) ?? 0,
          column: num(spec.column) ?? 0,
          tags: arr(spec.tags).filter((t): t is string => typeof t === 'string'),
          annotations: arr(test.annotations)
            .filter(isObject)
            .map((a) => ({ type: str(a.type) ?? '', description: str(a.description) })),
          status: str(test.status) ?? 'unknown',
          expectedStatus: str(test.expectedStatus) ?? 'passed',
          results: arr(test.results).filter(isObject).map(parseResult),
        });
      }
    }
    for (const child of arr(suite.suites)) walk(child, here, isObject(child) ? [...describePath, str(child.title) ?? ''] : describePath);
  };
  // Top-level suites are files: their title is the file name, not a describe block.
  for (const suite of arr(raw.suites)) walk(suite, '', []);
  const projects = isObject(raw.config) ? arr(raw.config.projects).map((p) => (isObject(p) ? (str(p.name) ?? '') : '')) : [];
  tests.sort((a, b) => compareLocation(a, b) || projects.indexOf(a.projectName) - projects.indexOf(b.projectName));
  return { tests, errors: arr(raw.errors).filter(isObject).map(parseError) };
}

/** Files by name, then tests by line and column: the order Elenchos numbers tests in (ties keep Playwright's order). */
function compareLocation(a: ReportTest, b: ReportTest): number {
  return (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column;
}

function parseResult(result: Record<string, unknown>): ReportResult {
  const errors = arr(result.errors).filter(isObject).map(parseError);
  // Older reports carry a single `error`; newer ones both (the same error twice).
  if (errors.length === 0 && isObject(result.error)) errors.push(parseError(result.error));
  return {
    status: str(result.status) ?? 'unknown',
    retry: num(result.retry) ?? 0,
    durationMs: num(result.duration),
    errors,
    attachments: arr(result.attachments)
      .filter(isObject)
      .map((a) => ({ name: str(a.name) ?? 'attachment', contentType: str(a.contentType), path: str(a.path) })),
    lastUrl: null,
  };
}

function parseError(error: Record<string, unknown>): ReportError {
  const message = stripAnsi(str(error.message) ?? str(error.value) ?? str(error.stack) ?? 'unknown error');
  const loc = isObject(error.location) ? error.location : null;
  const location = loc && str(loc.file) ? `${str(loc.file)}:${num(loc.line) ?? 0}:${num(loc.column) ?? 0}` : null;
  return { message, location };
}

/** Removes terminal colour codes (Playwright colours messages unless FORCE_COLOR=0). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
