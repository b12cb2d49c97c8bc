// Loads a task and everything needed to verify it: effective verifier, test file, criteria map.
import path from 'node:path';
import type { Config } from '../config/config-schema.js';
import { mapCriteria, type CriteriaMap } from '../contract/criteria-map.js';
import { loadTask, type LoadedTask } from '../contract/load-task.js';
import { checkRepoRelative, resolveRepoFile } from '../contract/repo-path.js';
import type { VerifierType } from '../contract/task-schema.js';
import { InputError } from '../errors.js';
import { loadVerifier } from '../verifiers/registry.js';
import type { VerifierAdapter } from '../verifiers/types.js';

export interface ResolvedTask extends LoadedTask {
  verifierType: VerifierType;
  verifier: VerifierAdapter;
  /** Repo-relative, normalized. */
  testFileLabel: string;
  testFilePath: string;
  map: CriteriaMap;
}

/**
 * Loads `file` and resolves its test file and criteria map against `root`; throws InputError on any
 * problem. `env` is what a verifier that lists its tests by running (Playwright) builds its child's from;
 * `keepListing`: that listing may be kept under `.elenchos/listings/` (commands that write there anyway).
 */
export async function resolveTask(
  file: string,
  root: string,
  config: Config,
  env: NodeJS.ProcessEnv,
  { keepListing = false }: { keepListing?: boolean } = {},
): Promise<ResolvedTask> {
  const loaded = await loadTask(file, { root });
  const { task, label } = loaded;
  const verifierType = task.verification.verifier ?? config.verifier.type ?? inferVerifier(task.verification.testFile);
  const verifier = await loadVerifier(verifierType);
  const key = `${label}: verification.testFile`;
  const testFileLabel = checkRepoRelative(task.verification.testFile, key);
  const nameProblem = verifier.checkTestFileName(testFileLabel);
  if (nameProblem) throw new InputError(`${key}: ${nameProblem}`);
  const testFilePath = await resolveRepoFile(testFileLabel, { root, label: key });
  // The config's command only when the task did not pick another verifier type (as verifierInvocation).
  const command = verifierType === config.verifier.type ? config.verifier.command : undefined;
  const steps = await verifier.readSteps(testFilePath, { root, command, env: config.verifier.env, baseEnv: env, keep: keepListing });
  const map = mapCriteria(task.acceptanceCriteria, steps);
  return { ...loaded, verifierType, verifier, testFileLabel, testFilePath: path.resolve(testFilePath), map };
}

/** When neither the task nor the config names a verifier, the test file's name does; Kane otherwise. */
export function inferVerifier(testFile: string): VerifierType {
  return /\.(spec|test)\.[cm]?[jt]sx?$/.test(testFile) ? 'playwright' : 'kane';
}
