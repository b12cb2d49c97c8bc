// `elenchos apply`: a VERIFIED run's exact change, into the checkout or onto a branch from its base.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { applyDir, attemptDir, attemptPaths } from '../../evidence/layout.js';
import { checkRunEvidence } from '../../evidence/check-evidence.js';
import { readRunRecord, type RunRecord } from '../../evidence/run-record.js';
import type { AttemptFile } from '../../evidence/attempt-record.js';
import { git, withGitEnvironment } from '../../git/git.js';
import { dirtyPaths, headCommit } from '../../git/status.js';
import { diffSnapshots, snapshotWorkspace } from '../../git/snapshot.js';
import { applyStoredWorkspace, restoreWorkspace } from '../../git/workspace-archive.js';
import { removeWorktree } from '../../git/worktree.js';
import { loadVerifier } from '../../verifiers/registry.js';
import { readAttempts, showStoredRun } from './inspect-runs.js';
import { signingKeyFor } from '../../util/signing-key.js';

export interface ApplyRunOptions {
  cwd: string;
  /** The caller's environment: git's (the commit's identity, the user's config). */
  env: NodeJS.ProcessEnv;
  runId: string;
  /** Commit the change in the checkout (ignored with a branch: a branch always gets a commit). */
  commit?: boolean;
  /** Put the change on a new branch from the run's base instead of the checkout; `true` picks the name. */
  branch?: string | true;
  signingKey?: string;
  /** A best-of run: take this VERIFIED candidate instead of the winner. */
  candidate?: string;
}

export type ApplyRunResult =
  | { into: 'checkout'; runId: string; attempt: number; base: string; commit: string | null; paths: string[] }
  | { into: 'branch'; runId: string; attempt: number; base: string; commit: string; branch: string; headMoved: boolean };

/** Takes the verified change of `runId`; refuses (InputError, exit 3) anything it cannot take exactly. */
export function applyRun(options: ApplyRunOptions): Promise<ApplyRunResult> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => applyRunInScope(options));
}

/** What `run --apply`, `--commit` or `--branch` asks of the run once it has ended. */
export interface ApplyWhenVerified {
  apply?: boolean;
  commit?: boolean;
  branch?: string | true;
}

/**
 * `run --apply/--commit/--branch`: the change of a run that ended VERIFIED, taken as `elenchos apply` takes it
 * (its evidence checked against the manifest with the caller's signing key). Null when none was asked or the
 * run did not end VERIFIED: its exit code says why.
 */
export async function applyIfVerified(
  record: Pick<RunRecord, 'state' | 'runId'>,
  asked: ApplyWhenVerified,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ApplyRunResult | null> {
  if (!(asked.apply || asked.commit || asked.branch !== undefined) || record.state !== 'VERIFIED') return null;
  return applyRun({
    cwd: options.cwd,
    env: options.env,
    runId: record.runId,
    commit: asked.commit,
    branch: asked.branch,
    signingKey: signingKeyFor(options.env),
  });
}

async function applyRunInScope(options: ApplyRunOptions): Promise<ApplyRunResult> {
  const shown = await pickCandidate(await showStoredRun(options.cwd, options.runId), options);
  const { record, root } = shown;
  const id = record.runId;
  if (record.mode !== 'run')
    throw new InputError(`run ${id} is an \`elenchos verify\` of commit ${record.workspace.base.slice(0, 12)}: it made no change to apply`);
  if (record.state !== 'VERIFIED') {
    throw new InputError(
      `run ${id} is ${record.state}${record.reason ? ` (${record.reason})` : ''}, not VERIFIED: only a verified change can be applied; elenchos show ${id} says why`,
    );
  }
  // What `evidence verify` checks: the run's manifest and each attempt's own.
  const manifest = await checkRunEvidence(shown.dir, { signingKey: options.signingKey });
  if (!manifest.ok) {
    throw new InputError(
      `run ${id}: its evidence does not match its manifest (${manifest.problems.length} problem(s)), so the stored change cannot be trusted; elenchos evidence verify ${id} lists them`,
    );
  }
  const attempt = await verifiedWorkspace(shown.dir, record);
  if (options.commit || options.branch !== undefined) await checkIdentity(root);
  const base = record.workspace.base;
  const head = await headCommit(root);
  const headMoved = head !== base;
  const toBranch = options.branch !== undefined || headMoved;
  const branch = options.branch === undefined || options.branch === true ? `elenchos/${record.task.id}-${id}` : options.branch;
  if (toBranch) await checkNewBranch(root, branch);
  else {
    const dirty = await dirtyPaths(root);
    if (dirty.length > 0) {
      throw new InputError(
        `the working tree is not clean (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}); commit or stash first, or take the change on a branch with elenchos apply ${id} --branch`,
      );
    }
  }
  // Built and checked in a scratch worktree first: what reaches the checkout or a branch is proven
  // to be the tree the verifier passed, before anything of the user's is written.
  const tree = applyDir(root, id);
  await removeWorktree(root, tree); // left over by an apply that was killed
  await restoreWorkspace(root, attemptDir(shown.dir, attempt), tree);
  try {
    await checkExact(tree, record, shown.attempts[record.attempts.findIndex((a) => a.number === attempt)] ?? null);
    if (toBranch) {
      const commit = await commitAll(tree, record);
      await git(['branch', branch, commit], { cwd: root });
      return { into: 'branch', runId: id, attempt, base, commit, branch, headMoved };
    }
  } finally {
    await removeWorktree(root, tree);
  }
  await applyStoredWorkspace(attemptPaths(attemptDir(shown.dir, attempt)).workspaceDir, root, { refuseExisting: true });
  const paths = await dirtyPaths(root);
  const commit = options.commit && paths.length > 0 ? await commitAll(root, record) : null;
  return { into: 'checkout', runId: id, attempt, base, commit, paths };
}

type Shown = Awaited<ReturnType<typeof showStoredRun>>;

/**
 * A best-of run's change is one candidate's: the winner, or `--candidate <name>` when that one is
 * VERIFIED too. The best-of run's manifest (over every candidate) must hold first; then the
 * candidate's own folder is applied like a plain run.
 */
async function pickCandidate(shown: Shown, options: ApplyRunOptions): Promise<Shown> {
  const { record } = shown;
  if (!record.candidates) {
    if (options.candidate !== undefined)
      throw new InputError(`run ${record.runId} is not a best-of run (run --agents / --best-of): it has no candidates; drop --candidate`);
    return shown;
  }
  const id = record.runId;
  const name = options.candidate ?? record.winner?.name;
  if (name === undefined) {
    throw new InputError(
      `run ${id} is ${record.state}${record.reason ? ` (${record.reason})` : ''}: no candidate was VERIFIED, so there is no change to apply; elenchos show ${id} says how far each got`,
    );
  }
  const entry = record.candidates.find((c) => c.name === name);
  if (!entry) {
    throw new InputError(`run ${id} has no candidate "${name}"; pick one of: ${record.candidates.map((c) => c.name).join(', ')}`);
  }
  if (entry.state !== 'VERIFIED') {
    const verified = record.candidates.filter((c) => c.state === 'VERIFIED').map((c) => c.name);
    throw new InputError(
      `run ${id}: candidate ${name} is ${entry.state}${entry.reason ? ` (${entry.reason})` : ''}, not VERIFIED: only a verified change can be applied${verified.length > 0 ? `; VERIFIED: ${verified.join(', ')}` : ''}`,
    );
  }
  const whole = await checkRunEvidence(shown.dir, { signingKey: options.signingKey });
  if (!whole.ok) {
    throw new InputError(
      `run ${id}: its evidence does not match its manifest (${whole.problems.length} problem(s)), so the stored change cannot be trusted; elenchos evidence verify ${id} lists them`,
    );
  }
  const dir = path.join(shown.dir, entry.dir);
  if (path.relative(shown.dir, dir).startsWith('..')) throw new InputError(`run ${id}: candidate ${name}'s folder is outside the run`);
  const candidate = await readRunRecord(dir);
  const attempts = await readAttempts(dir, candidate);
  return { ...shown, dir, record: candidate, attempts };
}

/**
 * The rebuilt tree must be the one the verifier passed: its snapshot (same exclusions) equals the
 * attempt's stored "after" snapshot. A redaction that rewrote the stored patch, or any archive bug,
 * is caught here instead of landing in the user's history. When the agent committed in its
 * worktree the snapshots have different HEADs and cannot be compared; the manifest still holds.
 */
async function checkExact(tree: string, record: RunRecord, attempt: AttemptFile | null): Promise<void> {
  const after = attempt?.snapshots.after;
  const verifier = record.verifier;
  if (!after || after.head !== record.workspace.base || !verifier) return;
  const exclude = await (await loadVerifier(verifier.type)).outputPaths(tree, verifier.testFile);
  const now = await snapshotWorkspace(tree, { exclude });
  if (now.contentHash === after.contentHash) return;
  const moved = diffSnapshots(after, now);
  // A new file the user's ignore rules now hide (.git/info/exclude is shared by every worktree) would be left out of the commit.
  const hint = moved.some((line) => line.endsWith(': deleted'))
    ? '; a path that reads "deleted" may be hidden by ignore rules added since the run (.gitignore, .git/info/exclude, core.excludesFile)'
    : '';
  throw new InputError(
    `run ${record.runId}: the stored change does not rebuild the tree the verifier passed (${moved.slice(0, 3).join('; ')}); nothing was applied${hint}`,
  );
}

/** A valid branch name nobody uses yet. */
async function checkNewBranch(root: string, branch: string): Promise<void> {
  await git(['check-ref-format', '--branch', branch], { cwd: root }).catch(() => {
    throw new InputError(`--branch "${branch}" is not a valid branch name; pick another`);
  });
  const exists = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: root }).then(
    () => true,
    () => false,
  );
  if (exists)
    throw new InputError(`branch ${branch} already exists; name another with --branch <name>, or delete it (git branch -D ${branch})`);
}

/** Refuses before anything is written when git could not commit (no user.name / user.email). */
async function checkIdentity(root: string): Promise<void> {
  await git(['var', 'GIT_COMMITTER_IDENT'], { cwd: root }).catch((error: unknown) => {
    throw new InputError('git does not know who you are, so it cannot commit; set git config user.name and user.email, then apply again', {
      cause: error,
    });
  });
}

/** The passing attempt's tree: the last attempt up to it that stored a workspace (a re-verification stores none). */
async function verifiedWorkspace(dir: string, record: RunRecord): Promise<number> {
  const passed = record.attempts.findLast((a) => a.status === 'PASS');
  const candidates = record.attempts.filter((a) => a.kind === 'agent' && (!passed || a.number <= passed.number)).reverse();
  for (const a of candidates) {
    const stored = attemptPaths(attemptDir(dir, a.number)).baseTxt;
    if (
      await access(stored).then(
        () => true,
        () => false,
      )
    )
      return a.number;
  }
  throw new InputError(`run ${record.runId}: no attempt stored its workspace, so there is no change to apply`);
}

/**
 * Commits everything in `cwd` (the tree was clean before the change) with trailers naming the run
 * and the contract. Hooks are skipped: a formatter in a pre-commit hook would commit something
 * other than what the verifier saw.
 */
async function commitAll(cwd: string, record: RunRecord): Promise<string> {
  await git(['add', '-A'], { cwd });
  const trailers = [
    `Elenchos-Run: ${record.runId}`,
    `Elenchos-Task: ${record.task.file}`,
    ...record.contract.files.filter((f) => f.role !== 'task-canonical').map((f) => `Elenchos-Contract: sha256:${f.sha256} ${f.path}`),
  ];
  const message = `${record.task.title}\n\nVerified by Elenchos: every acceptance criterion of ${record.task.id} passed.\n\n${trailers.join('\n')}\n`;
  await git(['commit', '--quiet', '--no-verify', '--allow-empty', '-F', '-'], { cwd, input: message });
  return (await git(['rev-parse', 'HEAD'], { cwd })).trim();
}
