// Runs a task's verifier once against an app someone else started: no agent, no worktree, no repair.
// The adapter-level entry point (`elenchos verify --verifier-only`) and what adapter tests drive.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../config/load-config.js';
import { InputError } from '../../errors.js';
import { repoRootOrCwd, withGitEnvironment } from '../../git/git.js';
import { refuseWeakeningArgs } from '../../verifiers/playwright/weakening-args.js';
import type { IterateOptions, VerificationResult, VerifierProgress } from '../../verifiers/types.js';
import { resolveTask } from '../resolve-task.js';
import { buildVerifyContext, verifierInvocation } from '../run/verify-context.js';

export interface VerifyOnceOptions {
  cwd: string;
  taskFile: string;
  /** The running app's URL (passed to Kane as `start_url`). */
  url: string;
  configFile?: string;
  /** The environment the verifier's environment is built from (credentials included). */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Where events.ndjson, stderr.log and Kane's files go (created when missing). */
  evidenceDir: string;
  onProgress?: (progress: VerifierProgress) => void;
  /** `--headed`, `--grep`, `--debug` (Playwright only; refused for other verifiers). */
  iterate?: IterateOptions;
}

/** Loads config and task, runs the task's verifier once in the repository root, and returns its result. */
export function verifyOnce(options: VerifyOnceOptions): Promise<VerificationResult> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => verifyOnceInScope(options));
}

async function verifyOnceInScope(options: VerifyOnceOptions): Promise<VerificationResult> {
  checkUrl(options.url);
  const root = await repoRootOrCwd(options.cwd);
  const { config, label } = await loadConfig({ root, file: options.configFile, env: options.env });
  const resolved = await resolveTask(path.resolve(options.cwd, options.taskFile), root, config, options.env);
  refuseWeakeningArgs(resolved.verifierType, verifierInvocation(config, resolved), label);
  const iterate =
    options.iterate && (options.iterate.headed || options.iterate.debug || options.iterate.grep !== null) ? options.iterate : undefined;
  if (iterate && resolved.verifierType !== 'playwright') {
    const used = [iterate.headed && '--headed', iterate.grep !== null && '--grep', iterate.debug && '--debug'].filter(Boolean).join(', ');
    throw new InputError(
      `${used}: Playwright options, but ${resolved.label} is verified by the ${resolved.verifierType} verifier; drop ${used}`,
    );
  }
  const evidenceDir = path.resolve(options.cwd, options.evidenceDir);
  await mkdir(evidenceDir, { recursive: true });
  return resolved.verifier.verify({
    ...buildVerifyContext({
      config,
      resolved,
      cwd: root,
      url: options.url,
      baseEnv: options.env,
      evidenceDir,
      signal: options.signal ?? new AbortController().signal,
      onProgress: options.onProgress,
    }),
    iterate,
  });
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`--url "${url}" is not a URL; pass the running app's address, e.g. http://127.0.0.1:3000/`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InputError(`--url "${url}" must be http:// or https://`);
  }
}
