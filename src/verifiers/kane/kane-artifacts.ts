// What Kane leaves on disk, copied into the attempt's evidence: the evidence pack named on stderr
// and `output-<stem>/` (Result.md) beside the test file. Anything missing is noted, never fatal.
import { cp, stat } from 'node:fs/promises';
import path from 'node:path';
import { EVIDENCE_FILES } from '../../evidence/layout.js';

const PACK_HINT = /evidence: view locally with `kane-cli evidence serve (.+?)`/;

/** The pack path from Kane's stderr hint line, or null. */
export function readEvidenceHint(line: string): string | null {
  return PACK_HINT.exec(line)?.[1]?.trim() ?? null;
}

export interface CopiedArtifacts {
  /** Where the pack was copied inside the evidence dir (null when there was nothing to copy). */
  pack: string | null;
  output: string | null;
  /** One line per thing that was expected but not found. */
  missing: string[];
}

/** Copies the pack (or its copy in `<cwd>/.testmuai/evidence/`) and `output-<stem>/` into `<evidenceDir>/kane/`. */
export async function copyKaneArtifacts(options: {
  evidenceDir: string;
  cwd: string;
  testFile: string;
  packPath: string | null;
}): Promise<CopiedArtifacts> {
  const target = path.join(options.evidenceDir, EVIDENCE_FILES.kane);
  const missing: string[] = [];
  let pack: string | null = null;
  if (options.packPath === null) {
    missing.push('Kane printed no evidence pack path on stderr');
  } else {
    // testmd run also copies its pack into the project store, which survives a foreign HOME path.
    const candidates = [options.packPath, path.join(options.cwd, '.testmuai', 'evidence', path.basename(options.packPath))];
    const found = await firstExisting(candidates);
    if (found) pack = await copyInto(found, path.join(target, path.basename(found)), missing);
    else missing.push(`evidence pack not found locally: ${options.packPath}`);
  }
  const stem = path.basename(options.testFile).replace(/_test\.md$/, '');
  const outputDir = path.join(path.dirname(options.testFile), `output-${stem}`);
  let output: string | null = null;
  if (await firstExisting([outputDir])) output = await copyInto(outputDir, path.join(target, `output-${stem}`), missing);
  else missing.push(`Kane wrote no output-${stem}/ beside the test file`);
  return { pack, output, missing };
}

async function firstExisting(candidates: string[]): Promise<string | null> {
  for (const candidate of candidates) {
    try {
      await stat(candidate);
      return candidate;
    } catch {
      // try the next one
    }
  }
  return null;
}

async function copyInto(source: string, destination: string, missing: string[]): Promise<string | null> {
  try {
    await cp(source, destination, { recursive: true, force: true, dereference: false });
    return destination;
  } catch (error) {
    missing.push(`could not copy ${source}: ${(error as Error).message}`);
    return null;
  }
}
