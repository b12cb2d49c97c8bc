// How big a candidate's change is (the winner rule's second criterion): lines added + removed of its
// stored patch and untracked text files, binary files by their size.
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { list } from 'tar';
import { attemptDir, attemptPaths } from '../../evidence/layout.js';
import { WORKSPACE_FILES } from '../../git/workspace-archive.js';
import { hunkResultSize } from './binary-patch.js';

export type ChangeSize = {
  /** The attempt whose stored workspace was measured (the one `apply` would take). */
  attempt: number;
  files: number;
  added: number;
  removed: number;
  /** Bytes of binary files (a binary file's lines mean nothing). */
  binaryBytes: number;
  /** added + removed + binaryBytes: what the rule compares. */
  size: number;
};

interface AttemptLike {
  number: number;
  kind: string;
  status: string;
}

/** The change of the attempt `apply` takes (the last agent attempt up to the PASS that stored a workspace), or null when none stored one. */
export async function measureChange(runDir: string, attempts: readonly AttemptLike[]): Promise<ChangeSize | null> {
  const passed = attempts.findLast((a) => a.status === 'PASS');
  const stored = attempts.filter((a) => a.kind === 'agent' && (!passed || a.number <= passed.number)).reverse();
  for (const a of stored) {
    const dir = attemptPaths(attemptDir(runDir, a.number)).workspaceDir;
    const has = await access(path.join(dir, WORKSPACE_FILES.base)).then(
      () => true,
      () => false,
    );
    if (!has) continue;
    const patch = await readFile(path.join(dir, WORKSPACE_FILES.diff), 'utf8').catch(() => '');
    const size = { attempt: a.number, ...patchSize(patch) };
    await addUntracked(path.join(dir, WORKSPACE_FILES.untracked), size);
    return { ...size, size: size.added + size.removed + size.binaryBytes };
  }
  return null;
}

interface BinaryHunk {
  kind: 'literal' | 'delta';
  size: number;
  lines: string[];
}

/** A binary file counts by its size: the new file's when added or changed, the old one's when deleted. */
function binaryBytes(hunks: readonly BinaryHunk[], deleted: boolean): number {
  // The forward hunk (old → new) comes first, the reverse one (new → old) second.
  const [forward, reverse] = hunks.map((h) => hunkResultSize(h.kind, h.size, h.lines) ?? h.size);
  return (deleted ? reverse : forward) ?? 0;
}

/** Counts a `git diff --binary` patch: `+`/`-` lines inside hunks, and each binary file by its size (binaryBytes). */
export function patchSize(patch: string): Omit<ChangeSize, 'attempt' | 'size'> {
  const out = { files: 0, added: 0, removed: 0, binaryBytes: 0 };
  let inHunk = false;
  let deleted = false;
  let binary: BinaryHunk[] | null = null;
  const endFile = () => {
    if (binary) out.binaryBytes += binaryBytes(binary, deleted);
    binary = null;
  };
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      endFile();
      out.files++;
      inHunk = false;
      deleted = false;
      continue;
    }
    if (binary) {
      // "literal <size>" or "delta <size>" opens a hunk; its base85 lines follow, an empty line ends it.
      const m = /^(literal|delta) (\d+)$/.exec(line);
      if (m) binary.push({ kind: m[1] as BinaryHunk['kind'], size: Number(m[2]), lines: [] });
      else if (line !== '') binary.at(-1)?.lines.push(line);
      continue;
    }
    if (line === 'GIT binary patch') {
      binary = [];
      continue;
    }
    if (!inHunk && line.startsWith('deleted file mode ')) deleted = true;
    if (line.startsWith('Binary files ')) continue;
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith('+')) out.added++;
    else if (line.startsWith('-')) out.removed++;
  }
  endFile();
  return out;
}

async function addUntracked(tarPath: string, size: Omit<ChangeSize, 'size'>): Promise<void> {
  const exists = await access(tarPath).then(
    () => true,
    () => false,
  );
  if (!exists) return;
  await list({
    file: tarPath,
    onReadEntry: (entry) => {
      if (entry.type !== 'File') {
        entry.resume();
        return;
      }
      size.files++;
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (bytes.includes(0)) size.binaryBytes += bytes.length;
        else size.added += bytes.length === 0 ? 0 : bytes.toString('utf8').split('\n').length - (bytes.at(-1) === 0x0a ? 1 : 0);
      });
    },
  });
}
