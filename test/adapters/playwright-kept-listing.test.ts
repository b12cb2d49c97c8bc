// A listing kept under .elenchos/listings/playwright/ spares a repeated verify the listing process,
// and must never let changed spec content go unseen: every attack below edits what the listing depends
// on between two listings, and a counting wrapper around the real Playwright shows when it was asked.
// @module-tag slow
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { listingsInMemory } from '../../src/verifiers/playwright/kept-listings.js';
import type { ReadStepsOptions, VerifyContext } from '../../src/verifiers/types.js';
import { REPO_ROOT, criteria, linkNodeModules } from '../fixtures/playwright/verify-context.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const PLAYWRIGHT = path.join(REPO_ROOT, 'node_modules/.bin/playwright');

// Tags from an imported helper, from the verifier's environment, and from a file read with fs by a path built
// at run time (no reader of imports sees it; `new URL('./tags.json', import.meta.url)` it would, and lock it):
// the three ways a spec's tags can change without the spec changing.
const SPEC = `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from '@playwright/test';
import { CART } from './helpers/tags';

const tags = fileURLToPath(import.meta.url).replace(/cart\\.spec\\.ts$/, 'tags.json');
test('adds an item', { tag: CART }, async () => {});
test('from the environment', { tag: process.env.EXTRA_TAG ?? '@AC-001' }, async () => {});
test('from a file', { tag: JSON.parse(readFileSync(tags, 'utf8')) }, async () => {});
`;

let root: string;
let log: string;
let wrapper: string;

beforeEach(() => {
  root = tempDir('elenchos-pw-kept-');
  linkNodeModules(root);
  writeFiles(root, {
    'package.json': '{ "type": "module" }\n',
    'tests/cart.spec.ts': SPEC,
    'tests/helpers/tags.ts': "export const CART = '@AC-002';\n",
    'tests/tags.json': '["@AC-003"]\n',
  });
  // The real Playwright, behind a script that counts how often it is started.
  const bin = tempDir('elenchos-pw-wrap-');
  log = path.join(bin, 'starts.log');
  wrapper = path.join(bin, 'playwright');
  writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(PLAYWRIGHT)} "$@"\n`);
  chmodSync(wrapper, 0o755);
});

const starts = () =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.includes('--list')).length
    : 0;
const kept = () => {
  const dir = path.join(root, '.elenchos/listings/playwright');
  return existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [];
};
const options = (extra: Partial<ReadStepsOptions> = {}): ReadStepsOptions => ({
  root,
  command: wrapper,
  env: {},
  baseEnv: process.env,
  ...extra,
});
// Each listing as a new process would do it: nothing remembered in memory.
const list = async (extra: Partial<ReadStepsOptions> = {}) => {
  listingsInMemory.clear();
  const steps = await playwrightAdapter.readSteps(path.join(root, 'tests/cart.spec.ts'), options(extra));
  return steps.map((s) => `${s.heading}: ${s.verifies.join(',')}`);
};
const FIRST = ['adds an item: AC-002', 'from the environment: AC-001', 'from a file: AC-003'];

describe('a kept Playwright listing', { timeout: 300_000 }, () => {
  it('spares a repeated verify the listing process; check reads it but never writes one', async () => {
    expect(await list()).toEqual(FIRST);
    expect(starts()).toBe(1);
    // check (keep: false) left the checkout as it was.
    expect(existsSync(path.join(root, '.elenchos'))).toBe(false);
    expect(await list({ keep: true })).toEqual(FIRST);
    expect(starts()).toBe(2);
    expect(kept()).toHaveLength(1);
    // A later verify and a later check: the same listing, and Playwright was not started.
    expect(await list({ keep: true })).toEqual(FIRST);
    expect(await list()).toEqual(FIRST);
    expect(starts()).toBe(2);
  });

  it('is never served for a changed spec, a changed helper it imports or a changed environment', async () => {
    await list({ keep: true });
    expect(starts()).toBe(1);
    // An agent edits the spec between runs.
    writeFiles(root, { 'tests/cart.spec.ts': SPEC.replace("'adds an item'", "'adds two items'") });
    expect((await list({ keep: true }))[0]).toBe('adds two items: AC-002');
    expect(starts()).toBe(2);
    // …or the helper it imports its tag from.
    writeFiles(root, { 'tests/helpers/tags.ts': "export const CART = '@AC-003';\n" });
    expect((await list({ keep: true }))[0]).toBe('adds two items: AC-003');
    expect(starts()).toBe(3);
    // A tag built at run time from the verifier's environment.
    expect((await list({ keep: true, env: { EXTRA_TAG: '@AC-002' } }))[1]).toBe('from the environment: AC-002');
    expect(starts()).toBe(4);
    // …or from the inherited environment the child's is built from.
    expect((await list({ keep: true, baseEnv: { ...process.env, TZ: 'Pacific/Apia' } }))[1]).toBe('from the environment: AC-001');
    expect(starts()).toBe(5);
    // The same inputs again: each was kept by its own content.
    writeFiles(root, { 'tests/cart.spec.ts': SPEC, 'tests/helpers/tags.ts': "export const CART = '@AC-002';\n" });
    expect(await list({ keep: true })).toEqual(FIRST);
    expect(starts()).toBe(5);
  });

  it('a tag read from a file with fs, which the key cannot see: the run disagrees (INCONCLUSIVE) and drops the listing', async () => {
    await list({ keep: true });
    writeFiles(root, { 'tests/tags.json': '["@AC-001"]\n' });
    // Served as it was kept: what the key cannot see, it cannot see.
    const stale = await list({ keep: true });
    expect(stale[2]).toBe('from a file: AC-003');
    expect(starts()).toBe(1);
    // The run's own report says otherwise: never a silent mis-mapping.
    const result = await runWith(stale);
    expect(result.status, result.summary).toBe('INCONCLUSIVE');
    expect(result.findings.map((f) => f.reasonCode)).toContain('criteria_mismatch');
    expect(kept()).toEqual([]);
    // The next verify asks Playwright again, and sees the file's tag.
    expect((await list({ keep: true }))[2]).toBe('from a file: AC-001');
    expect(starts()).toBe(2);
  });

  it('a forged entry cannot pass anything: the run disagrees and the entry is dropped', async () => {
    await list({ keep: true });
    const [entry] = kept();
    // Rewritten as an agent with write access to .elenchos/ might: one test proving every criterion.
    writeFileSync(entry!, JSON.stringify([{ index: 1, heading: 'adds an item', verifies: ['AC-001', 'AC-002', 'AC-003'] }]));
    const forged = await list({ keep: true });
    expect(forged).toEqual(['adds an item: AC-001,AC-002,AC-003']);
    const result = await runWith(forged);
    expect(result.status, result.summary).toBe('INCONCLUSIVE');
    expect(result.findings.map((f) => f.reasonCode)).toEqual(expect.arrayContaining(['criteria_mismatch', 'test_undeclared']));
    expect(kept()).toEqual([]);
    expect(await list({ keep: true })).toEqual(FIRST);
  });
});

/** Runs the spec (its tests open no page: no browser, no app) against the listing as the run would have it. */
async function runWith(listed: string[]) {
  const steps = listed.map((line, i) => {
    const [heading, ids] = line.split(': ') as [string, string];
    return { index: i + 1, heading, verifies: ids.split(',').filter(Boolean) };
  });
  const evidenceDir = path.join(tempDir('elenchos-pw-kept-evidence-'), 'verifier');
  mkdirSync(evidenceDir, { recursive: true });
  const ctx: VerifyContext = {
    cwd: root,
    testFile: path.join(root, 'tests/cart.spec.ts'),
    testFileLabel: 'tests/cart.spec.ts',
    url: 'http://127.0.0.1:9/',
    criteria: criteria(3),
    map: mapCriteria(criteria(3), steps),
    variables: {},
    command: wrapper,
    args: ['--retries=0'],
    env: {},
    baseEnv: process.env,
    timeoutMs: 120_000,
    evidenceDir,
    browserPath: undefined,
    signal: new AbortController().signal,
  };
  return playwrightAdapter.verify(ctx);
}
