// The listings this process holds: in memory (one per spec content, root, command) and the ones kept
// on disk it read or wrote. Apart from list-tests.ts so a run can drop them without an import cycle.
import { rm } from 'node:fs/promises';
import type { DeclaredStep } from '../../contract/criteria-map.js';

/** One listing per key per process: `check` of many tasks sharing a spec lists it once. */
export const listingsInMemory = new Map<string, Promise<DeclaredStep[]>>();
// Kept listing files this process read or wrote, by the spec's repo-relative path.
const keptFiles = new Map<string, Set<string>>();

/** Remembers that `file` holds (or will hold) the listing of `testFileLabel`. */
export function rememberKeptListing(testFileLabel: string, file: string): void {
  keptFiles.set(testFileLabel, (keptFiles.get(testFileLabel) ?? new Set<string>()).add(file));
}

/**
 * Drops every listing of `testFileLabel` this process holds, on disk too: the run's report disagreed
 * with the listing, so the next verify asks Playwright again (deleting a kept listing is always safe).
 */
export async function forgetKeptListing(testFileLabel: string): Promise<void> {
  const files = keptFiles.get(testFileLabel) ?? new Set<string>();
  keptFiles.delete(testFileLabel);
  listingsInMemory.clear();
  await Promise.all([...files].map((file) => rm(file, { force: true })));
}
