// Which `goto` calls of a spec name a fixed host instead of going through baseURL (src/verifiers/playwright/fixed-host.ts).
import { describe, expect, it } from 'vitest';
import { findFixedHostGotos, fixedHostWarning } from '../../src/verifiers/playwright/fixed-host.js';

const spec = (body: string) =>
  `import { test, expect } from '@playwright/test';\ntest('t @AC-001', async ({ page, baseURL }) => {\n${body}\n});\n`;

describe('a spec that navigates to a fixed host', () => {
  it('is found with its line, however the literal is written', () => {
    const source = spec(
      [
        "  await page.goto('http://localhost:5173');",
        '  await page.goto(`http://127.0.0.1:3000/todos/${1}`);',
        "  await page.goto('HTTPS://example.test' + '/x');",
        '  await (page as any)[\'goto\']("http://localhost:5173/about");',
      ].join('\n'),
    );
    expect(findFixedHostGotos(source)).toEqual([
      { line: 3, url: 'http://localhost:5173' },
      { line: 4, url: 'http://127.0.0.1:3000/todos/' },
      { line: 5, url: 'HTTPS://example.test' },
      { line: 6, url: 'http://localhost:5173/about' },
    ]);
  });

  it('leaves baseURL-relative navigation alone', () => {
    const source = spec(
      [
        "  await page.goto('/');",
        "  await page.goto('about');",
        '  await page.goto(`${baseURL}/x`);',
        "  await page.goto(baseURL + '/y');",
      ].join('\n'),
    );
    expect(findFixedHostGotos(source)).toEqual([]);
  });

  it('is said as file:line with the relative path to use instead', () => {
    expect(fixedHostWarning('tests/app.spec.ts', { line: 7, url: 'http://localhost:5173/about?x=1' })).toBe(
      'tests/app.spec.ts:7: page.goto("http://localhost:5173/about?x=1") opens a fixed host, not the app Elenchos starts at app.url (a free port per run): the run ends VERIFIER_ERROR; fix: page.goto("/about") (relative to baseURL, which Elenchos sets to the app\'s URL)',
    );
  });
});
