// Orders the test files longest first, so that vitest's two workers, each taking the next file when it
// is done, end at about the same time: a slow file started last would run alone at the end.
//
// vitest's own order does this only from its results cache (node_modules/.vite), which a fresh clone
// in CI does not have; without it, it keeps the glob order, and a three-minute browser file may start
// last. So the durations come, in this order, from: vitest's cache when it has the file (this
// machine's last run), else `test/durations.json` (committed, seconds per file, from a measured
// run: `node scripts/test-durations.js <vitest json report> --write` writes it), else the median of the known
// files of the same folder (a new file of test/unit is short, one of test/e2e is not).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS_FILE = path.join(path.dirname(new URL(import.meta.url).pathname), 'durations.json');

function committedDurations(): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const committed = committedDurations();
    const known = new Map<string, number>();
    for (const file of files) {
      const rel = path.relative(root, file.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${file.project.name}:${rel}`);
      // The cache holds milliseconds, the committed file seconds.
      const seconds = cached && !cached.failed ? cached.duration / 1000 : committed[rel];
      if (typeof seconds === 'number' && Number.isFinite(seconds)) known.set(rel, seconds);
    }
    const byFolder = new Map<string, number[]>();
    for (const [rel, seconds] of known) byFolder.set(path.dirname(rel), [...(byFolder.get(path.dirname(rel)) ?? []), seconds]);
    const estimate = (file: TestSpecification) => {
      const rel = path.relative(root, file.moduleId).split(path.sep).join('/');
      return known.get(rel) ?? median(byFolder.get(path.dirname(rel)) ?? []);
    };
    const estimates = new Map(files.map((file) => [file, estimate(file)]));
    // Stable: equal estimates keep the glob order.
    return [...files].sort((a, b) => estimates.get(b)! - estimates.get(a)!);
  }
}
