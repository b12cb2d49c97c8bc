// The Playwright verifier's static side and its classification rules, without a browser.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import { classifyPlaywright, type ProcessFacts } from '../../src/verifiers/playwright/classify.js';
import { parseJsonReport } from '../../src/verifiers/playwright/json-report.js';
import { playwrightCommand } from '../../src/verifiers/playwright/run-playwright.js';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { playwrightLockedInputs } from '../../src/verifiers/playwright/spec-imports.js';
import { declaredSteps } from '../../src/verifiers/playwright/declared-tests.js';
import { criteria } from '../fixtures/playwright/verify-context.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

describe('the spec file', () => {
  it('accepts spec names only', () => {
    expect(playwrightAdapter.checkTestFileName('tests/a.spec.ts')).toBeNull();
    expect(playwrightAdapter.checkTestFileName('tests/a.test.mjs')).toBeNull();
    expect(playwrightAdapter.checkTestFileName('tests/a_test.md')).toMatch(/Playwright spec/);
  });
});

describe('lockedInputs', () => {
  it('follows relative imports transitively and stays inside the repository', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tests/a.spec.ts':
        "import { x } from './helpers/x.js';\nimport data from './data.json';\nimport { test } from '@playwright/test';\nconst y = require('../shared');\nimport('./lazy');\n// import './commented';\n",
      'tests/helpers/x.ts': "export * from './y';\nexport const x = 1;\n",
      'tests/helpers/y.mjs': "import '../../../outside.js';\n",
      'tests/data.json': '{}',
      'shared/index.js': '',
      'tests/lazy.ts': '',
      'tests/commented.ts': '',
    });
    expect((await playwrightLockedInputs(root, 'tests/a.spec.ts')).files).toEqual([
      'shared/index.js',
      'tests/data.json',
      'tests/helpers/x.ts',
      'tests/helpers/y.mjs',
      'tests/lazy.ts',
    ]);
    expect(await playwrightAdapter.outputPaths(root, 'tests/a.spec.ts')).toEqual([]);
  });

  // The patterns this replaced read only quoted literals: each of these helpers was left unlocked.
  it('follows every import form the TypeScript parser sees, and names the ones built at run time', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@helpers/*': ['tests/helpers/*'] } } }),
      'tests/a.spec.ts': [
        "import { test } from '@playwright/test';",
        'const helper = await import(`./helper.js`);',
        'const data = require(`./data.json`);',
        "const where = import.meta.resolve('./resolved.js');",
        "const fixture = new URL('./fixture.html', import.meta.url);",
        "import { login } from '@helpers/login';",
        "export * from './exported';",
        'const name = process.env.HELPER;',
        'await import(`./dyn/${name}.js`);',
        'require(name);',
      ].join('\n'),
      'tests/helper.ts': '',
      'tests/data.json': '{}',
      'tests/resolved.js': '',
      'tests/fixture.html': '',
      'tests/helpers/login.ts': '',
      'tests/exported.ts': '',
    });
    const found = await playwrightLockedInputs(root, 'tests/a.spec.ts');
    expect(found.files).toEqual([
      'tests/data.json',
      'tests/exported.ts',
      'tests/fixture.html',
      'tests/helper.ts',
      'tests/helpers/login.ts',
      'tests/resolved.js',
      'tsconfig.json',
    ]);
    expect(found.unresolved.map((line) => line.split(' names ')[0])).toEqual([
      'tests/a.spec.ts:9: `import(`./dyn/${name}.js`)`',
      'tests/a.spec.ts:10: `require(name)`',
    ]);
  });
});

describe('playwrightCommand', () => {
  it('prefers the configured command, then the nearest node_modules/.bin, then npx without installing', () => {
    const root = tempDir();
    writeFiles(root, { 'node_modules/.bin/playwright': '', 'deep/er/x': '' });
    expect(playwrightCommand(path.join(root, 'deep/er'), undefined)).toEqual({
      command: path.join(root, 'node_modules/.bin/playwright'),
      args: [],
    });
    expect(playwrightCommand(root, 'npx')).toEqual({ command: 'npx', args: ['--no', 'playwright'] });
    expect(playwrightCommand(root, 'yarn playwright')).toEqual({ command: 'yarn', args: ['playwright'] });
  });
});

describe('classifyPlaywright', () => {
  const ok: ProcessFacts = { exitCode: 1, timedOut: false, aborted: false, spawnError: null, stderrTail: '', timeoutMs: 60_000 };
  const spec = (title: string, line: number, results: { status: string; errors?: string[] }[], status: string) => ({
    title,
    line,
    column: 1,
    file: 'a.spec.ts',
    tags: [title.match(/@(\S+)/)?.[1] ?? ''],
    tests: [
      {
        status,
        expectedStatus: 'passed',
        annotations: [],
        results: results.map((r, retry) => ({
          status: r.status,
          retry,
          errors: (r.errors ?? []).map((message) => ({ message })),
          attachments: [],
        })),
      },
    ],
  });
  const classify = (specs: unknown[], facts = ok, n = 2) => {
    const cs = criteria(n);
    const report = parseJsonReport({ suites: [{ file: 'a.spec.ts', specs }] });
    // The listing and the run see the same tests: the map comes from the report's own tests.
    return classifyPlaywright({
      criteria: cs,
      map: mapCriteria(cs, declaredSteps(report.tests)),
      process: facts,
      report: { ok: true, report },
    });
  };

  it('treats a non-assertion error as unattributed (INCONCLUSIVE), not a product failure', () => {
    const result = classify([
      spec('one @AC-001', 1, [{ status: 'passed' }], 'expected'),
      spec(
        'two @AC-002',
        2,
        [{ status: 'failed', errors: ["TypeError: Cannot read properties of undefined (reading 'x')"] }],
        'unexpected',
      ),
    ]);
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.findings[0]).toMatchObject({ step: 2, kind: 'unattributed_failure', reasonCode: 'error' });
  });

  it("treats a navigation the app refused as the app's failure (VERIFIER_ERROR), not the product's", () => {
    const refused =
      'Error: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/\nCall log:\n  - navigating to "http://127.0.0.1:9/", waiting until "load"\n';
    const result = classify([
      spec('one @AC-001', 1, [{ status: 'passed' }], 'expected'),
      spec('two @AC-002', 2, [{ status: 'failed', errors: [refused] }], 'unexpected'),
    ]);
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.findings[0]).toMatchObject({ step: 2, kind: 'verifier_error', reasonCode: 'app_unreachable' });
    expect(result.summary).toMatch(/the app's failure/);
  });

  it('never lets a test.fail() test (failing as "expected") prove its criterion', () => {
    const marked = spec('two @AC-002', 2, [{ status: 'failed', errors: ['Error: expect(received).toBe(expected)'] }], 'expected');
    (marked.tests[0] as { expectedStatus: string }).expectedStatus = 'failed';
    const result = classify([spec('one @AC-001', 1, [{ status: 'passed' }], 'expected'), marked], { ...ok, exitCode: 0 });
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.criteria.map((c) => [c.id, c.status])).toEqual([
      ['AC-001', 'PASS'],
      ['AC-002', 'UNVERIFIED'],
    ]);
    expect(result.findings[0]).toMatchObject({ step: 2, reasonCode: 'expected_to_fail' });
  });

  it('is INCONCLUSIVE when the report and the spec disagree on the tests', () => {
    const cs = criteria(1);
    const listed = parseJsonReport({ suites: [{ file: 'a.spec.ts', specs: [spec('declared @AC-001', 1, [], 'skipped')] }] });
    const steps = declaredSteps(listed.tests);
    const report = parseJsonReport({
      suites: [{ file: 'a.spec.ts', specs: [spec('renamed @AC-001', 1, [{ status: 'passed' }], 'expected')] }],
    });
    const result = classifyPlaywright({
      criteria: cs,
      map: mapCriteria(cs, steps),
      process: { ...ok, exitCode: 0 },
      report: { ok: true, report },
    });
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.findings.map((f) => f.reasonCode)).toEqual(['test_missing', 'test_undeclared']);
  });

  it('is a VERIFIER_ERROR for errors outside the tests, and PASS needs exit code 0', () => {
    const passing = [
      spec('one @AC-001', 1, [{ status: 'passed' }], 'expected'),
      spec('two @AC-002', 2, [{ status: 'passed' }], 'expected'),
    ];
    expect(classify(passing, { ...ok, exitCode: 0 }).status).toBe('PASS');
    expect(classify(passing, { ...ok, exitCode: 1 }).status).toBe('INCONCLUSIVE');
    const cs = criteria(1);
    const broken = classifyPlaywright({
      criteria: cs,
      map: mapCriteria(cs, []),
      process: ok,
      report: { ok: true, report: parseJsonReport({ suites: [], errors: [{ message: 'SyntaxError: Unexpected token' }] }) },
    });
    expect(broken).toMatchObject({ status: 'VERIFIER_ERROR', summary: expect.stringMatching(/outside the tests: SyntaxError/) });
    const garbage = classifyPlaywright({
      criteria: cs,
      map: mapCriteria(cs, []),
      process: ok,
      report: { ok: false, reason: "Playwright's JSON report is not valid JSON" },
    });
    expect(garbage.status).toBe('VERIFIER_ERROR');
  });
});
