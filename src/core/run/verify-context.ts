// The one place that turns config + task into what a verifier gets (run, verify and verify-once share it).
import path from 'node:path';
import type { Config } from '../../config/config-schema.js';
import type { VerifierProgress, VerifyContext } from '../../verifiers/types.js';
import type { ResolvedTask } from '../resolve-task.js';
import { verifierInvocation } from '../verifier-invocation.js';

export interface VerifyContextInput {
  config: Config;
  resolved: ResolvedTask;
  /** Where the verifier runs (worktree or checkout). */
  cwd: string;
  url: string;
  baseEnv: NodeJS.ProcessEnv;
  evidenceDir: string;
  signal: AbortSignal;
  onProgress?: (progress: VerifierProgress) => void;
}

export { verifierInvocation } from '../verifier-invocation.js';

/** Builds the VerifyContext; task variables win over config variables of the same name. */
export function buildVerifyContext(input: VerifyContextInput): VerifyContext {
  const { config, resolved } = input;
  const { task } = resolved;
  return {
    cwd: input.cwd,
    testFile: path.join(input.cwd, resolved.testFileLabel),
    testFileLabel: resolved.testFileLabel,
    url: input.url,
    criteria: task.acceptanceCriteria,
    map: resolved.map,
    variables: { ...config.verifier.variables, ...(task.verification.variables ?? {}) },
    ...verifierInvocation(config, resolved),
    env: config.verifier.env,
    baseEnv: input.baseEnv,
    timeoutMs: (task.verification.timeoutSeconds ?? config.verifier.timeoutSeconds) * 1000,
    evidenceDir: input.evidenceDir,
    browserPath: config.verifier.browserPath,
    signal: input.signal,
    onProgress: input.onProgress,
  };
}
