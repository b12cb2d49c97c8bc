// The contract lock: hashes of every input the verdict depends on, taken before anything runs.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isLockFile } from '../../contract/test-lock-schema.js';
import { parseJsonBytes } from '../../util/json-file.js';
import { TEST_FILE_LIMIT, readRegularFile } from '../../util/regular-file.js';
import { sha256 } from '../../util/sha256.js';

export type LockedRole = 'task' | 'task-canonical' | 'test' | 'import' | 'variables' | 'spec' | 'test-lock';

export interface LockedFile {
  /** Repo-relative, forward slashes. */
  path: string;
  sha256: string;
  role: LockedRole;
}

/** JSON with object keys sorted at every level: the same contract hashes the same however it is formatted. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface LockInputs {
  root: string;
  taskLabel: string;
  testLabel: string;
  /** Other repo-relative files the verifier reads (imports, variables files, spec imports). */
  extra: string[];
}

/** Hashes the task (bytes and canonical JSON), the test file and every other verifier input under `root`. */
export async function lockContract(inputs: LockInputs): Promise<LockedFile[]> {
  const read = (file: string) => readRegularFile(path.join(inputs.root, file), { label: file, maxBytes: TEST_FILE_LIMIT });
  const taskBytes = await read(inputs.taskLabel);
  const locked: LockedFile[] = [
    { path: inputs.taskLabel, sha256: sha256(taskBytes), role: 'task' },
    { path: inputs.taskLabel, sha256: sha256(canonicalJson(parseJsonBytes(taskBytes, inputs.taskLabel))), role: 'task-canonical' },
    { path: inputs.testLabel, sha256: sha256(await read(inputs.testLabel)), role: 'test' },
  ];
  for (const extra of inputs.extra) {
    const role: LockedRole = isLockFile(extra)
      ? 'test-lock'
      : extra.startsWith('.testmuai/variables/')
        ? 'variables'
        : inputs.testLabel.endsWith('_test.md')
          ? 'import'
          : 'spec';
    locked.push({ path: extra, sha256: sha256(await read(extra)), role });
  }
  return locked;
}

export interface ContractPlace {
  /** "worktree" or "main checkout", for messages. */
  label: string;
  root: string;
  /** The verifier inputs found there now (to catch an added variables file or import). */
  currentExtra: string[];
}

/** Every way the locked contract differs in `place`; empty when it is intact. */
export async function verifyContract(locked: readonly LockedFile[], place: ContractPlace): Promise<string[]> {
  const problems: string[] = [];
  for (const file of locked) {
    if (file.role === 'task-canonical') continue; // the byte hash already covers it; kept for the record
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(path.join(place.root, file.path), { label: file.path, maxBytes: TEST_FILE_LIMIT });
    } catch (error) {
      const gone = (error as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT';
      problems.push(
        gone
          ? `${file.path} was deleted in the ${place.label}`
          : `${file.path} was replaced in the ${place.label} by something that is not a readable file`,
      );
      continue;
    }
    if (sha256(bytes) !== file.sha256) problems.push(`${file.path} changed in the ${place.label}`);
  }
  const known = new Set(locked.map((f) => f.path));
  for (const extra of place.currentExtra) {
    if (!known.has(extra)) problems.push(`${extra} appeared in the ${place.label} (the verifier would read it)`);
  }
  return problems;
}

/**
 * Inode, size and change time of every locked file under `root`: a file rewritten while the verifier
 * read it and restored afterwards hashes the same, but its ctime (which no process can set back) moves.
 */
export async function statContract(locked: readonly LockedFile[], root: string): Promise<Map<string, string>> {
  const stamps = new Map<string, string>();
  for (const file of new Set(locked.map((f) => f.path))) {
    const info = await stat(path.join(root, file), { bigint: true }).catch(() => null);
    stamps.set(file, info ? `${info.ino}:${info.size}:${info.ctimeNs}` : 'missing');
  }
  return stamps;
}

/** Locked files whose stamp differs between two `statContract` calls. */
export function touchedBetween(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...before.keys()].filter((file) => before.get(file) !== after.get(file));
}

// A locked file a dev server may rewrite as it starts: Next.js reconfigures `tsconfig.json` when it lacks
// what Next wants (an include of its types folder, which depends on NODE_ENV). Any other locked file is
// the task, its test or what the test reads.
const TOOL_CONFIG = /(^|\/)(tsconfig(\.[\w-]+)?|jsconfig)\.json$/;

/**
 * Whether every problem found after the app started names a tool config changed in the worktree
 * (`tsconfig.json changed in the worktree`, or a bare path from `touchedBetween`): a dev server may have
 * done it, which the message says (the run is still tampering: the app is the agent's code).
 */
export function onlyToolConfigsChanged(problems: readonly string[]): boolean {
  return (
    problems.length > 0 &&
    problems.every((p) => {
      const changed = / changed in the worktree$/.exec(p);
      const file = changed ? p.slice(0, changed.index) : p;
      return !file.includes(' ') && TOOL_CONFIG.test(file);
    })
  );
}

/** What to say when only a tool config changed after the app started (the end of a CONTRACT_CHANGED message). */
export const TOOL_CONFIG_FIX =
  'a dev server may rewrite such a file as it starts: review the change in the evidence (elenchos show) before committing it, since a rewrite could also map a module the verifier loads';

/** The same when the app is `next dev`, which rewrites tsconfig.json when it lacks what Next wants (more under a NODE_ENV other than development). */
export const NEXT_TOOL_CONFIG_FIX =
  'a dev server may rewrite such a file as it starts (Next.js does when it lacks what Next wants, and under a NODE_ENV other than development it wants more): if it was yours, unset NODE_ENV or review the change in the evidence (elenchos show) before committing it, since a rewrite could also map a module the verifier loads';
