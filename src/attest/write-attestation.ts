// `verify --attest` / `merge --attest`: the verdict as a signed in-toto statement in a DSSE envelope.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE } from '../config/load-config.js';
import { InputError } from '../errors.js';
import { findRepoRoot, withGitEnvironment } from '../git/git.js';
import { resolveCommit } from '../git/commit-files.js';
import { INPUT_FILE_LIMIT, readRegularFile } from '../util/regular-file.js';
import { sha256 } from '../util/sha256.js';
import { ciRunUrl } from './ci-url.js';
import { buildStatement, type ConfigurationFile, type Statement } from './statement.js';
import { readVerdict } from './verdict.js';

export interface VerdictStatementOptions {
  cwd: string;
  /** The exact `--json` document: the verdict subject is its sha256. */
  document: string;
  /** The command's exit code when it is known (only 0 can be PASSED); null: the document alone decides. */
  exitCode: number | null;
  /** `--config`, for a verdict whose runs name none (no task reached its run). */
  configFile?: string;
  env: NodeJS.ProcessEnv;
}

export interface AttestVerdictOptions extends VerdictStatementOptions {
  exitCode: number;
  /** Signs the statement's bytes: a keyed DSSE envelope, or a keyless Sigstore bundle; what it returns is written. */
  sign: (payload: Buffer) => Promise<unknown>;
  /** Where the envelope goes (absolute). */
  out: string;
}

export interface AttestVerdictResult {
  file: string;
  commit: string;
  result: 'PASSED' | 'FAILED';
}

/** The in-toto statement of one verdict document: its commit, the files its runs locked, each criterion's result. */
export function statementOfVerdict(options: VerdictStatementOptions): Promise<Statement> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => statementOfVerdictInScope(options));
}

async function statementOfVerdictInScope(options: VerdictStatementOptions): Promise<Statement> {
  const facts = readVerdict(options.document);
  const root = await findRepoRoot(options.cwd);
  if (!root) throw new InputError(`--attest: ${options.cwd} is not in a git repository; an attestation names a commit`);
  if (facts.commits.length > 1)
    throw new InputError(
      `--attest: the runs verified ${facts.commits.length} commits (${facts.commits.join(', ')}); attest one commit's verdict`,
    );
  const commit = facts.commits[0] ?? (await resolveCommit(root, 'HEAD'));
  if (!commit) throw new InputError('--attest: the repository has no commit yet; commit, verify, then attest');
  const config = await readConfigFile(root, facts.configFiles, options.configFile);
  return buildStatement({
    commit,
    verdictSha256: sha256(options.document),
    result: (options.exitCode ?? 0) === 0 && facts.allVerified ? 'PASSED' : 'FAILED',
    configuration: config ? [config, ...facts.contractFiles] : facts.contractFiles,
    passedTests: facts.passedTests,
    failedTests: facts.failedTests,
    url: ciRunUrl(options.env),
    guards: facts.guards,
  });
}

/** Builds, signs and writes the attestation of one verdict document. */
export async function attestVerdict(options: AttestVerdictOptions): Promise<AttestVerdictResult> {
  const statement = await statementOfVerdict(options);
  const envelope = await options.sign(Buffer.from(JSON.stringify(statement), 'utf8'));
  try {
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(envelope, null, 2)}\n`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InputError(`--attest ${options.out}: cannot write it (${code}); choose a writable path`, { cause: error });
  }
  const commit = statement.subject[0]!.digest!.gitCommit!;
  return { file: options.out, commit, result: statement.predicate.result === 'PASSED' ? 'PASSED' : 'FAILED' };
}

/**
 * The config file the runs used, hashed as it is on disk now (verify reads it from the checkout, not
 * from HEAD: an uncommitted edit shows as a digest the commit does not have). Null when defaults applied.
 */
async function readConfigFile(
  root: string,
  named: readonly (string | null)[],
  flag: string | undefined,
): Promise<ConfigurationFile | null> {
  const files = named.filter((f): f is string => f !== null);
  if (new Set(files).size > 1)
    throw new InputError(`--attest: the runs used different config files (${files.join(', ')}); attest one configuration`);
  const label = files[0] ?? (flag === undefined ? CONFIG_FILE : path.relative(root, path.resolve(root, flag)).split(path.sep).join('/'));
  const bytes = await readRegularFile(path.join(root, label), { label, maxBytes: INPUT_FILE_LIMIT }).catch(() => null);
  if (bytes === null) {
    // Defaults only: attest verify then requires the commit to have no config file either.
    if (files.length === 0 && flag === undefined) return null;
    throw new InputError(`--attest: the config file ${label} cannot be read; run from the checkout the verdict was made in`);
  }
  return { path: label, sha256: sha256(bytes), role: 'config' };
}
