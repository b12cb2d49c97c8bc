// What a `verify` shard says about itself: the commit and tree, the plan, and a digest of every input
// of the whole task list, sorted, whatever state a contract is in.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildShardMetadata } from '../../src/core/verify/shard-metadata.js';
import { ShardMetadataSchema } from '../../src/core/verify/shard-metadata-schema.js';
import { gitSync, taskJson, tempRepo } from '../helpers/temp.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('buildShardMetadata', () => {
  it('digests the config, every contract, test and lock of the whole list once, sorted, and plans this shard', async () => {
    const files = {
      'elenchos.config.json': '{ "tasks": ["tasks/*.json"] }\n',
      'tasks/b.json': taskJson({ id: 'b', verification: { testFile: 'tests/shared_test.md' } }),
      'tasks/a.json': taskJson({ id: 'a', verification: { testFile: './tests/shared_test.md' } }),
      'tasks/a.lock.json': '{ "lockVersion": 1 }\n',
      'tasks/broken.json': '{ "id": ',
      'tasks/escape.json': taskJson({ id: 'e', verification: { testFile: '../outside_test.md' } }),
      'tests/shared_test.md': '## Step 1 @verifies AC-001\nVerify "x".\n',
    };
    const root = tempRepo(files);
    const commit = gitSync(root, 'rev-parse', 'HEAD').trim();
    const all = ['tasks/a.json', 'tasks/b.json', 'tasks/broken.json', 'tasks/escape.json', 'tasks/gone.json'];
    const metadata = await buildShardMetadata({
      root,
      commit,
      configPath: path.join(root, 'elenchos.config.json'),
      files: all.map((f) => path.join(root, f)),
      shard: { index: 2, count: 2 },
    });
    expect(ShardMetadataSchema.parse(metadata)).toEqual(metadata);
    expect(metadata).toMatchObject({
      formatVersion: 1,
      shard: { index: 2, total: 2 },
      commit,
      tree: gitSync(root, 'rev-parse', 'HEAD^{tree}').trim(),
      tasks: all,
      plan: ['tasks/b.json', 'tasks/escape.json'],
    });
    // A missing task has no digest (its run is refused and says why); a broken or escaping one has its own only.
    expect(metadata.inputs).toEqual([
      { path: 'elenchos.config.json', role: 'config', sha256: sha(files['elenchos.config.json']) },
      { path: 'tasks/a.json', role: 'task', sha256: sha(files['tasks/a.json']) },
      { path: 'tasks/a.lock.json', role: 'test-lock', sha256: sha(files['tasks/a.lock.json']) },
      { path: 'tasks/b.json', role: 'task', sha256: sha(files['tasks/b.json']) },
      { path: 'tasks/broken.json', role: 'task', sha256: sha(files['tasks/broken.json']) },
      { path: 'tasks/escape.json', role: 'task', sha256: sha(files['tasks/escape.json']) },
      { path: 'tests/shared_test.md', role: 'test', sha256: sha(files['tests/shared_test.md']) },
    ]);
  });

  it('outside a repository: no commit, no tree, and the defaults have no config digest', async () => {
    const root = tempRepo({ 'tasks/a.json': taskJson({ id: 'a' }) });
    const metadata = await buildShardMetadata({ root, commit: null, configPath: null, files: [], shard: { index: 1, count: 1 } });
    expect(metadata).toMatchObject({ commit: null, tree: null, tasks: [], plan: [], inputs: [] });
  });
});
