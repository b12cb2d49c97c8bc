import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { resolveTask } from '../../src/core/resolve-task.js';
import { toolchainChanges } from '../../src/core/run/toolchain.js';
import { verifierInvocation } from '../../src/core/run/verify-context.js';
import { playwrightToolchain } from '../../src/verifiers/playwright/toolchain.js';
import { taskJson, tempDir, writeFiles } from '../helpers/temp.js';
import { linkNodeModules } from '../fixtures/playwright/verify-context.js';

describe('the Playwright toolchain fingerprint', () => {
  it('changes when a package the spec imports is swapped in an ignored node_modules', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tests/a.spec.ts': "import { test } from '@playwright/test';\n",
      'node_modules/@playwright/test/package.json': '{"name":"@playwright/test","version":"1.58.2"}',
      'node_modules/@playwright/test/index.js': 'module.exports = require("playwright/test");\n',
      'node_modules/.bin/playwright': '#!/bin/sh\n',
    });
    const options = { cwd: root, testFileLabel: 'tests/a.spec.ts', command: undefined, env: { PATH: '' } };
    const before = await playwrightToolchain(options);
    expect(before).toContain('playwright not resolvable');
    expect(await playwrightToolchain(options)).toEqual(before);
    const index = path.join(root, 'node_modules/@playwright/test/index.js');
    writeFileSync(index, 'module.exports = { expect: () => ({ toBe() {} }) };\n');
    utimesSync(index, new Date(1), new Date(1));
    const after = await playwrightToolchain(options);
    expect(toolchainChanges(before, after)).toEqual(['@playwright/test']);
  });
});

describe('verifierInvocation', () => {
  it("gives a task that picks another verifier type the adapter's default, not the config's executable", async () => {
    const root = tempDir();
    writeFiles(root, {
      'elenchos.config.json': JSON.stringify({
        verifier: { type: 'kane', command: '/opt/kane/kane-cli', args: ['--bug-detection', 'continue'] },
      }),
      'tasks/a.json': taskJson({ verification: { testFile: 'tests/a.spec.ts', verifier: 'playwright' } }),
      'tasks/b.json': taskJson({ verification: { testFile: 'tests/b_test.md' } }),
      'tests/a.spec.ts':
        "import { test } from '@playwright/test';\ntest('one', { tag: '@AC-001' }, async () => {});\ntest('two', { tag: '@AC-002' }, async () => {});\n",
      'tests/b_test.md': '## One @verifies AC-001\nx\n## Two @verifies AC-002\ny\n',
    });
    // Playwright lists the spec's tests with the project's own Playwright (the kane command would not list them).
    linkNodeModules(root);
    const { config } = await loadConfig({ root });
    expect(verifierInvocation(config, await resolveTask('tasks/a.json', root, config, {}))).toEqual({ command: undefined, args: [] });
    expect(verifierInvocation(config, await resolveTask('tasks/b.json', root, config, {}))).toEqual({
      command: '/opt/kane/kane-cli',
      args: ['--bug-detection', 'continue'],
    });
  });
});
