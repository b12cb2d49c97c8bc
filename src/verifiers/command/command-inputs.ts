// What a command verifier reads besides its test file (the test's `@import` helpers and variables files, as
// Kane's, and the verifier's own modules in the repository), and what it runs on (its executable and the
// packages its modules import from a node_modules of the repository, which is git-ignored).
import path from 'node:path';
import { commandExecutable } from '../../process/command-string.js';
import { fileStamp, treeStamp } from '../../process/file-stamp.js';
import { findExecutable } from '../../process/find-executable.js';
import { kaneLockedInputs } from '../kane/inputs.js';
import type { VerifierInputs, VerifierInvocation } from '../types.js';
import { verifierModules } from './verifier-modules.js';

const DEFAULT_COMMAND = 'elenchos-verifier';

/** The test's helpers and variables files, and every file of the repository the verifier's code loads. */
export async function commandLockedInputs(root: string, testFileLabel: string, invocation: VerifierInvocation): Promise<VerifierInputs> {
  const files = new Set(await kaneLockedInputs(root, testFileLabel));
  const modules = await verifierModules(root, invocation);
  for (const file of modules.files) files.add(file);
  files.delete(testFileLabel);
  return { files: [...files].sort(), unresolved: modules.unresolved };
}

/** The executable as resolved in `cwd`, and a stamp of each package the verifier's modules import by name. */
export async function commandToolchain(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  invocation: VerifierInvocation;
}): Promise<string[]> {
  const executable = commandExecutable(options.invocation.command ?? DEFAULT_COMMAND);
  const found = await findExecutable(executable, { cwd: options.cwd, pathEnv: options.env.PATH });
  const lines = [`executable ${found ? await fileStamp(found) : `${executable} not found`}`];
  const { packages } = await verifierModules(options.cwd, options.invocation);
  for (const pkg of packages) lines.push(`${pkg} ${await treeStamp(path.join(options.cwd, pkg)).catch(() => 'missing')}`);
  return lines;
}
