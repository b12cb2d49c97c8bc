// The verifier's toolchain fingerprint for a run: the adapter's own, or the resolved executable.
import { commandExecutable } from '../../process/command-string.js';
import { fileStamp } from '../../process/file-stamp.js';
import { findExecutable } from '../../process/find-executable.js';
import type { RunContext } from './run-context.js';
import { invocationOf, verifierInvocation } from '../verifier-invocation.js';

/** Lines describing what the verifier runs on, as resolved in the workspace now. */
export async function verifierToolchain(ctx: RunContext): Promise<string[]> {
  const { command } = verifierInvocation(ctx.config, ctx.resolved);
  const adapter = ctx.resolved.verifier;
  if (adapter.toolchain) {
    const invocation = invocationOf(ctx.config, ctx.resolved);
    return adapter.toolchain({ cwd: ctx.workspace, testFileLabel: ctx.resolved.testFileLabel, command, env: ctx.env, invocation });
  }
  const executable = commandExecutable(command ?? adapter.defaultCommand().command);
  const found = await findExecutable(executable, { cwd: ctx.workspace, pathEnv: ctx.env.PATH });
  return [`executable ${found ? await fileStamp(found) : `${executable} not found`}`];
}

/** Lines that differ between two fingerprints. */
export function toolchainChanges(before: readonly string[], after: readonly string[]): string[] {
  const was = new Set(before);
  return after.filter((line) => !was.has(line)).map((line) => line.split(' ')[0] ?? line);
}
