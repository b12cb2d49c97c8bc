// Saves a setup cache entry in one go, as a test arranges one: the run itself snapshots first and
// saves later (snapshotForSave, then saveFromSnapshot), so this pairing lives with the tests.
import { saveFromSnapshot, snapshotForSave, type StoreResult } from '../../src/core/workspace/setup-cache-store.js';

/** Snapshots `paths` in `workspace` and saves them as entry `key` of `cacheDir`. */
export async function saveCacheEntry(
  cacheDir: string,
  key: string,
  workspace: string,
  paths: readonly string[],
  keyFile: string,
): Promise<StoreResult> {
  const snap = await snapshotForSave(workspace, paths);
  if (!snap.ok) return snap;
  return saveFromSnapshot(cacheDir, key, workspace, snap.snapshot, { keyFile });
}
