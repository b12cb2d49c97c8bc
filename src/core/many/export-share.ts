// `run … --export <file>`: this share's sealed run folders as one tar.gz, with `elenchos-share.json` first
// (the commit, the inputs, the plan and the share's place in it, each run's manifest digest), for `join`.
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { create } from 'tar';
import { InputError, describeError } from '../../errors.js';
import { elenchosDir, manifestPath } from '../../evidence/layout.js';
import { hashFile } from '../../evidence/manifest.js';
import { jsonText } from '../../evidence/write-json.js';
import { elenchosVersion } from '../../version.js';
import { buildShardMetadata } from '../verify/shard-metadata.js';
import type { RunManyResult } from './run-many.js';
import { SHARE_FILE, SHARE_FORMAT_VERSION, SHARE_RUNS_DIR, signShare, type ShareManifest, type ShareRun } from './share-manifest.js';

export interface ExportShareOptions {
  /** Where the tar.gz goes (absolute). */
  file: string;
  agents?: string[];
  bestOf?: number;
  /** ELENCHOS_SIGNING_KEY: signs the share manifest too, so that a join with the same key can tell who wrote it. */
  signingKey?: string;
}

/** Writes the export; every run of the share must have ended (sealed). Returns the manifest written. */
export async function exportShare(result: RunManyResult, options: ExportShareOptions): Promise<ShareManifest> {
  const manifest = await describeShare(result, options);
  const staging = path.join(elenchosDir(result.root), 'exports', result.group.id);
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(path.join(staging, SHARE_RUNS_DIR), { recursive: true });
    await writeFile(path.join(staging, SHARE_FILE), jsonText(manifest));
    for (const t of result.tasks) {
      if (t.runDir && t.record) await cp(t.runDir, path.join(staging, SHARE_RUNS_DIR, t.record.runId), { recursive: true });
    }
    const partial = `${options.file}.partial`;
    try {
      await mkdir(path.dirname(options.file), { recursive: true });
      // Only files and folders travel (a link in evidence would be refused by the join anyway); portable: no owner, no uid.
      await create(
        {
          gzip: true,
          portable: true,
          cwd: staging,
          file: partial,
          filter: (_p, stat) => 'isFile' in stat && (stat.isFile() || stat.isDirectory()),
        },
        [SHARE_FILE, SHARE_RUNS_DIR],
      );
      await rename(partial, options.file);
    } catch (error) {
      await rm(partial, { force: true });
      throw new InputError(`--export ${options.file}: cannot write it (${describeError(error)}); choose a writable path`, { cause: error });
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return manifest;
}

/** The share manifest: what this share is and holds, signed when a key is set. */
async function describeShare(result: RunManyResult, options: ExportShareOptions): Promise<ShareManifest> {
  const share = result.group.share ?? { index: 1, total: 1 };
  const metadata = await buildShardMetadata({
    root: result.root,
    commit: result.head,
    configPath: result.configPath,
    files: result.allTasks.map((t) => path.resolve(result.root, t)),
    shard: { index: share.index, count: share.total },
  });
  const runs: ShareRun[] = [];
  for (const t of result.tasks) {
    if (!t.record || !t.runDir) continue;
    runs.push({
      task: t.task,
      runId: t.record.runId,
      candidates: t.record.candidates ? t.record.candidates.map((c) => c.name) : null,
      manifestSha256: (await hashFile(manifestPath(t.runDir))).sha256,
    });
  }
  const unsigned: ShareManifest = {
    format: 'elenchos-share',
    formatVersion: SHARE_FORMAT_VERSION,
    elenchos: elenchosVersion(),
    host: hostname(),
    group: result.group.id,
    share,
    commit: result.head,
    tree: metadata.tree!,
    tasks: result.allTasks,
    bestOf: { agents: options.agents ?? null, bestOf: options.bestOf ?? null },
    candidates: result.candidates,
    plan: result.plan,
    assigned: result.share,
    inputs: metadata.inputs,
    runs,
  };
  return options.signingKey ? { ...unsigned, hmac: signShare(unsigned, options.signingKey) } : unsigned;
}
