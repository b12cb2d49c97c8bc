// `verifier.type: command`: any executable that speaks Elenchos's verifier event protocol.
import { mkdir } from 'node:fs/promises';
import { childEnv } from '../../process/child-env.js';
import { commandWords } from '../../process/command-string.js';
import { runProcess } from '../../process/spawn.js';
import { firstDuplicateKey } from '../../util/json-scan.js';
import { NdjsonReader } from '../../util/ndjson-reader.js';
import { commandLockedInputs, commandToolchain } from './command-inputs.js';
import { parseTestMd } from '../kane/test-md.js';
import { printTestMdSteps } from '../kane/step-prints.js';
import type { VerificationResult, VerifierAdapter, VerifyContext } from '../types.js';
import { classifyCommand } from './classify-command.js';
import { ProtocolState } from './protocol.js';
import { bytecodeFreeEnv } from './no-bytecode.js';
import { readTestFileText } from '../../util/regular-file.js';
import { commandFilesDir, verifierFiles } from '../../evidence/layout.js';

export const commandAdapter: VerifierAdapter = {
  type: 'command',
  defaultCommand: () => ({ command: 'elenchos-verifier', args: [] }),
  // Any file name: its steps are `## ` headings with `@verifies`, as in a Kane test.
  checkTestFileName: () => null,
  readSteps: async (testFile) => parseTestMd(await readTestFileText(testFile)).steps,
  printSteps: async (testFile) => printTestMdSteps(await readTestFileText(testFile)),
  lockedInputs: commandLockedInputs,
  toolchain: commandToolchain,
  outputPaths: async () => [],
  verify: runCommandVerifier,
};

/** Runs `<command> <args> <test file>` with stdin closed, streams its NDJSON into the evidence, and classifies it. */
export async function runCommandVerifier(ctx: VerifyContext): Promise<VerificationResult> {
  const declared = parseTestMd(await readTestFileText(ctx.testFile)).steps;
  await mkdir(ctx.evidenceDir, { recursive: true });
  const [command = '', ...leading] = commandWords(ctx.command ?? 'elenchos-verifier');
  const variables = Object.fromEntries(Object.entries(ctx.variables).map(([k, v]) => [k, typeof v === 'string' ? v : v.value]));
  const own = {
    ELENCHOS_URL: ctx.url,
    ELENCHOS_TEST_FILE: ctx.testFile,
    ELENCHOS_VARIABLES: JSON.stringify(variables),
    ELENCHOS_EVIDENCE_DIR: commandFilesDir(ctx.evidenceDir),
  };
  const caches = await bytecodeFreeEnv();
  const env = childEnv('command-verifier', { baseEnv: ctx.baseEnv, set: [ctx.env, own, caches.env] });
  await mkdir(commandFilesDir(ctx.evidenceDir), { recursive: true });
  const reader = new NdjsonReader();
  const state = new ProtocolState(ctx.onProgress);
  const outcome = await runProcess(command, [...leading, ...ctx.args, ctx.testFile], {
    cwd: ctx.cwd,
    env,
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    stdoutFile: verifierFiles(ctx.evidenceDir).verifierEvents,
    stderrFile: verifierFiles(ctx.evidenceDir).verifierStderr,
    maxOutputBytes: 64 * 1024 * 1024,
    keepBytes: 8 * 1024,
    onStdoutLine: (line) => {
      const event = reader.read(line);
      if (!event) return;
      const repeated = firstDuplicateKey(line);
      // JSON.parse keeps the last of two equal keys: a line that says both failed and passed is no report.
      if (repeated !== null) state.problems.push(`a ${String(event.type)} event repeats the key "${repeated}"`);
      state.feed(event);
    },
  }).finally(() => caches.dispose());
  const spawnError = outcome.spawnError ? `${command}: ${outcome.spawnError.code ?? outcome.spawnError.message}` : null;
  const classified = classifyCommand(ctx, declared, state, { ...outcome, spawnError, lineTooLong: reader.stats.overlong > 0 });
  return {
    ...classified,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    details: {
      verifier: 'command',
      command,
      args: [...leading, ...ctx.args],
      done: state.done,
      lines: reader.stats,
      steps: [...state.steps.values()],
    },
  };
}
