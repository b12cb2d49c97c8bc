// `elenchos attest verify`: does this attestation vouch for this commit, these contracts, every task, PASSED?
import path from 'node:path';
import { ConfigSchema } from '../config/config-schema.js';
import { CONFIG_FILE } from '../config/load-config.js';
import { InputError } from '../errors.js';
import { findRepoRoot, withGitEnvironment } from '../git/git.js';
import { listCommitFiles, readCommitFiles, resolveCommit } from '../git/commit-files.js';
import { TEST_FILE_LIMIT, readRegularFile } from '../util/regular-file.js';
import { sha256 } from '../util/sha256.js';
import { lockFilesAmong, lockPathFor, taskOfLock } from '../contract/test-lock-schema.js';
import { selectTasksInTree } from './commit-tasks.js';
import { EnvelopeSchema, IN_TOTO_PAYLOAD_TYPE, keyIdOf, openEnvelope } from './dsse.js';
import { readVerifyKey } from './keys.js';
import { AttestationRefusedError } from './refused.js';
import type { KeylessPolicy } from './sigstore-verify.js';
import { StatementSchema, type Statement } from './statement.js';
import type { GuardName } from '../states.js';

export { AttestationRefusedError } from './refused.js';

/** The config's `tasks` when it sets none: the schema's own default, so the two cannot drift apart. */
const DEFAULT_TASKS: readonly string[] = ConfigSchema.shape.tasks.parse(undefined);

export interface VerifyAttestationOptions {
  cwd: string;
  /** The caller's environment: git's. */
  env: NodeJS.ProcessEnv;
  file: string;
  /** The signer: an Ed25519 public key file (`--key`), or a keyless identity (a Sigstore bundle). */
  signer: { keyFile: string } | { keyless: KeylessPolicy };
  /** The commit it must be about (default HEAD). */
  commit?: string;
  /** The verdict document it must name (its `--json` output), when given. */
  verdictFile?: string;
  /** `--require`: guards that must have stood behind every task's verdict. */
  require?: readonly GuardName[];
}

export interface VerifyAttestationResult {
  commit: string;
  /** Who signed: `key <key id>`, or `<identity> (<issuer>)` for a keyless attestation. */
  signer: string;
  tasks: string[];
  files: number;
  /** The guards that stood behind every task (empty for an attestation that records none). */
  guards: GuardName[];
}

/** Checks signature, result, commit, every file digest at the commit and the task set; throws AttestationRefusedError on the first that fails. */
export function verifyAttestation(options: VerifyAttestationOptions): Promise<VerifyAttestationResult> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => verifyAttestationInScope(options));
}

async function verifyAttestationInScope(options: VerifyAttestationOptions): Promise<VerifyAttestationResult> {
  const { signer } = options;
  // A key is read first, so a wrong --key is bad input (exit 3) before anything else is looked at.
  const publicKey = 'keyFile' in signer ? await readVerifyKey(signer.keyFile, options.cwd) : null;
  const root = await findRepoRoot(options.cwd);
  if (!root)
    throw new InputError(`attest verify: ${options.cwd} is not in a git repository; run it in a checkout of the commit's repository`);
  const rev = options.commit ?? 'HEAD';
  const commit = await resolveCommit(root, rev);
  if (!commit) throw new InputError(`--commit ${rev}: names no commit in ${root}; fetch it or pass a commit id`);
  const statement = await openStatement(options, publicKey);
  const signedBy =
    'keyless' in signer ? `${signer.keyless.identity} (${signer.keyless.issuer})` : `key ${keyIdOf(publicKey!).slice(0, 16)}`;

  if (statement.predicate.result !== 'PASSED')
    throw new AttestationRefusedError('result', `the verdict is ${statement.predicate.result}, not PASSED`);
  const subjects = statement.subject.filter((s) => s.digest?.gitCommit !== undefined).map((s) => s.digest!.gitCommit!);
  if (subjects.length !== 1 || subjects[0] !== commit)
    throw new AttestationRefusedError('commit', `it is about commit ${subjects.join(', ') || '(none)'}, not ${commit} (${rev})`);
  if (options.verdictFile !== undefined) await checkVerdict(statement, path.resolve(options.cwd, options.verdictFile), options.verdictFile);

  const described = statement.predicate.configuration.map((d, i) => {
    const role = d.annotations?.role;
    if (!d.name || !d.digest?.sha256 || typeof role !== 'string')
      throw new AttestationRefusedError('configuration', `configuration[${i}] has no name, sha256 digest or role`);
    return { path: d.name, sha256: d.digest.sha256, role };
  });
  const atCommit = await readCommitFiles(root, commit, [...new Set([...described.map((d) => d.path), CONFIG_FILE])]);
  for (const d of described) {
    const bytes = atCommit.get(d.path);
    if (!bytes) throw new AttestationRefusedError('configuration', `${d.path} (${d.role}) is not a file in commit ${commit}`);
    if (sha256(bytes) !== d.sha256)
      throw new AttestationRefusedError(
        'configuration',
        `${d.path} (${d.role}) at commit ${commit} is not the file that was verified (sha256 differs)`,
      );
  }

  const config = described.find((d) => d.role === 'config');
  if (!config && atCommit.get(CONFIG_FILE))
    throw new AttestationRefusedError('configuration', `it names no config file, but commit ${commit} has ${CONFIG_FILE}`);
  const patterns = config ? configTaskPatterns(atCommit.get(config.path)!, config.path) : DEFAULT_TASKS;
  // The gate's own --require binds: a commit's guards.require was its verify's to enforce, and the commit is the agent's.
  checkGuards(statement, options.require ?? []);
  const commitFiles = await listCommitFiles(root, commit);
  const planned = selectTasksInTree(patterns, commitFiles);
  // A task whose lock is in the commit cannot leave the set in silence (core/lock/locked-task-set.ts).
  const dropped = lockFilesAmong(commitFiles).filter(
    (lock) => lockPathFor(taskOfLock(lock)) === lock && !planned.includes(taskOfLock(lock)),
  );
  if (dropped.length > 0)
    throw new AttestationRefusedError(
      'tasks',
      `${dropped.map(taskOfLock).join(', ')} ${dropped.length === 1 ? 'is' : 'are'} locked at ${commit} (${dropped.join(', ')}) but not in the config's task set, so not verified; a locked task cannot leave the set in silence`,
    );
  const attested = [...new Set(described.filter((d) => d.role === 'task').map((d) => d.path))].sort();
  const missing = planned.filter((t) => !attested.includes(t));
  const extra = attested.filter((t) => !planned.includes(t));
  if (missing.length > 0)
    throw new AttestationRefusedError(
      'tasks',
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} in the config's task set at ${commit} but not verified`,
    );
  if (extra.length > 0)
    throw new AttestationRefusedError('tasks', `${extra.join(', ')} verified but not in the config's task set at ${commit}`);
  return { commit, signer: signedBy, tasks: attested, files: described.length, guards: statement.predicate.guards?.stood ?? [] };
}

async function openStatement(options: VerifyAttestationOptions, publicKey: Parameters<typeof openEnvelope>[1] | null): Promise<Statement> {
  let text: string;
  try {
    text = (await readRegularFile(path.resolve(options.cwd, options.file), { label: options.file, maxBytes: TEST_FILE_LIMIT })).toString(
      'utf8',
    );
  } catch (error) {
    throw new InputError(`cannot read the attestation: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AttestationRefusedError('envelope', `${options.file} is not JSON`);
  }
  const payload =
    'keyless' in options.signer
      ? await (await import('./sigstore-verify.js')).openKeylessBundle(json, options.file, options.signer.keyless, options.cwd)
      : openKeyedEnvelope(json, options.file, options.signer.keyFile, publicKey!);
  let statement: unknown;
  try {
    statement = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new AttestationRefusedError('statement', 'the signed payload is not JSON');
  }
  const parsed = StatementSchema.safeParse(statement);
  if (!parsed.success)
    throw new AttestationRefusedError('statement', 'the signed payload is not an in-toto Statement v1 with the test-result v0.1 predicate');
  return parsed.data;
}

/** The payload of a keyed DSSE envelope whose signature holds for `publicKey`. */
function openKeyedEnvelope(json: unknown, file: string, keyFile: string, publicKey: Parameters<typeof openEnvelope>[1]): Buffer {
  const envelope = EnvelopeSchema.safeParse(json);
  if (!envelope.success) throw new AttestationRefusedError('envelope', `${file} is not a DSSE envelope (payloadType, payload, signatures)`);
  if (envelope.data.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw new AttestationRefusedError(
      'envelope',
      `payloadType is ${JSON.stringify(envelope.data.payloadType)}, not ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  const payload = openEnvelope(envelope.data, publicKey);
  if (!payload)
    throw new AttestationRefusedError('signature', `no signature holds for ${keyFile} (signed with another key, or changed since)`);
  return payload;
}

async function checkVerdict(statement: Statement, file: string, label: string): Promise<void> {
  const bytes = await readRegularFile(file, { label, maxBytes: TEST_FILE_LIMIT }).catch(() => null);
  if (!bytes) throw new InputError(`--verdict ${label}: cannot read it; pass the --json output the attestation was made with`);
  const digests = statement.subject.map((s) => s.digest?.sha256).filter((d) => d !== undefined);
  if (!digests.includes(sha256(bytes)))
    throw new AttestationRefusedError('verdict', `${label} is not the verdict document the attestation names (sha256 differs)`);
}

/** Refuses a statement whose tasks did not all stand on every `required` guard, naming what was missing and where. */
function checkGuards(statement: Statement, required: readonly GuardName[]): void {
  if (required.length === 0) return;
  const guards = statement.predicate.guards;
  const missing = required.filter((g) => !(guards?.stood ?? []).includes(g));
  if (missing.length === 0) return;
  const where = Object.entries(guards?.tasks ?? {})
    .filter(([, t]) => missing.some((g) => !t.stood.includes(g)))
    .map(([file]) => file);
  const at = guards === undefined ? ' (the attestation records no guards)' : where.length > 0 ? ` (not in ${where.join(', ')})` : '';
  throw new AttestationRefusedError('guards', `required guard(s) did not stand behind every task: ${missing.join(', ')}${at}`);
}

/** The config's `tasks` globs (its default when it sets none); a config that does not parse is refused. */
function configTaskPatterns(bytes: Buffer, label: string): readonly string[] {
  let config: unknown;
  try {
    config = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new AttestationRefusedError('tasks', `${label} at the commit is not JSON; its task set cannot be read`);
  }
  const tasks = (config as { tasks?: unknown } | null)?.tasks;
  if (tasks === undefined) return DEFAULT_TASKS;
  if (!Array.isArray(tasks) || !tasks.every((t) => typeof t === 'string'))
    throw new AttestationRefusedError('tasks', `${label} at the commit: "tasks" is not a list of globs`);
  return tasks;
}
