// What the Playwright verifier runs on: the runner and the packages the spec imports. node_modules is
// git-ignored, so neither the lock nor the snapshot sees an agent that plants a fake `expect` there.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileStamp, treeStamp } from '../../process/file-stamp.js';
import { findExecutable } from '../../process/find-executable.js';
import { followJsModules } from '../js-modules.js';
import { playwrightCommand } from './run-playwright.js';

const PACKAGES = ['@playwright/test', 'playwright', 'playwright-core'];

/** One line per piece of the toolchain as resolved from the spec's folder in `cwd`. */
export async function playwrightToolchain(options: {
  cwd: string;
  testFileLabel: string;
  command: string | undefined;
  env: NodeJS.ProcessEnv;
}): Promise<string[]> {
  const { command } = playwrightCommand(options.cwd, options.command);
  const runner = (await findExecutable(command, { cwd: options.cwd, pathEnv: options.env.PATH })) ?? command;
  const lines = [`runner ${await fileStamp(runner)}`];
  const resolveFrom = createRequire(path.join(options.cwd, options.testFileLabel));
  for (const name of PACKAGES) {
    let dir: string;
    try {
      dir = path.dirname(resolveFrom.resolve(`${name}/package.json`));
    } catch {
      lines.push(`${name} not resolvable`);
      continue;
    }
    lines.push(`${name} ${await treeStamp(dir)}`);
  }
  // Any other package the spec or its helpers import by name (`import _ from 'lodash'`): code the test runs.
  const { packages } = await followJsModules(options.cwd, options.testFileLabel);
  for (const pkg of packages) {
    if (PACKAGES.some((name) => pkg.endsWith(`node_modules/${name}`))) continue;
    lines.push(`${pkg} ${await treeStamp(path.join(options.cwd, pkg)).catch(() => 'missing')}`);
  }
  return lines;
}
