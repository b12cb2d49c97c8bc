// What one Playwright error says about its cause: which API call failed, what its call log waited for,
// whether a navigation failed. Shapes taken from @playwright/test 1.58 JSON reports (docs/playwright.md).
import type { ReportError } from './json-report.js';

export interface ErrorFacts {
  /** `locator.click`, `page.goto`, `expect(locator).toBeVisible` … (null for a bare runner message). */
  api: string | null;
  /** The call log's lines, without the leading "- ". */
  callLog: string[];
  /** The locator the call was still waiting for when it gave up (`getByRole('button', { name: 'Reset' })`). */
  waitedFor: string | null;
  /** A navigation call (`page.goto`, `waitForURL` …) failed or was cut short. */
  navigation: boolean;
  /** Chromium's network error (`net::ERR_CONNECTION_REFUSED`), when the message names one. */
  netError: string | null;
  /** The URL a failed navigation was going to. */
  navigatingTo: string | null;
  /** The bare runner message `Test timeout of Nms exceeded.` (no call of the test named). */
  bareTimeout: boolean;
}

const API =
  /^(?:\w*Error: )?((?:page|frame|locator|elementHandle|browserContext|browser|request|response|keyboard|mouse|context)\.\w+|expect(?:\.soft|\.poll)?\((?:locator|page|received)\)\.(?:not\.)?\w+)/;
const BARE_TIMEOUT = /^Test timeout of \d+ms exceeded\.?$/;
const NAVIGATION_API = /^(?:page|frame)\.(?:goto|reload|goBack|goForward|waitForURL|waitForNavigation|waitForLoadState|setContent)$/;
// Playwright describes locators as `locator('#x')`, `getByRole(…)`, `frameLocator(…)`, `internal:…`, chained with `.`.
const WAITING_FOR_LOCATOR =
  /^waiting for ((?:locator|getBy\w+|frameLocator|internal:\w+)\b.*?)(?: to be (?:visible|hidden|attached|detached))?$/;
const NAVIGATING = /^navigating to "([^"]*)"/;
const NET_ERROR = /\bnet::(ERR_[A-Z_]+)/;

/** Reads the facts classification needs out of one error's message (colour codes already stripped). */
export function readErrorFacts(error: ReportError): ErrorFacts {
  const lines = error.message.split('\n');
  const head = lines[0]?.trim() ?? '';
  const api = API.exec(head)?.[1] ?? null;
  const callLog = readCallLog(lines);
  const waiting = callLog.map((l) => WAITING_FOR_LOCATOR.exec(l)?.[1] ?? null).filter((x): x is string => x !== null);
  const navigatingTo = callLog.map((l) => NAVIGATING.exec(l)?.[1] ?? null).find((x) => x !== null) ?? null;
  return {
    api,
    callLog,
    waitedFor: waiting.at(-1) ?? null,
    navigation: api !== null && NAVIGATION_API.test(api),
    netError: NET_ERROR.exec(head)?.[1] ?? null,
    navigatingTo,
    bareTimeout: BARE_TIMEOUT.test(head) && lines.filter((l) => l.trim() !== '').length === 1,
  };
}

/** The lines under `Call log:` up to the first blank line (the code frame follows). */
function readCallLog(lines: string[]): string[] {
  const start = lines.findIndex((l) => l.trim() === 'Call log:');
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    out.push(line.trim().replace(/^- /, ''));
  }
  return out;
}
