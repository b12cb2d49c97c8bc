// Interpreters keep compiled code beside the source or in a cache, and trust it without reading the source
// again: Python runs `__pycache__/x.<tag>.pyc` whose header matches `x.py` (or an "unchecked" one whatever
// `x.py` says), Node's compile cache and the TypeScript loaders' transform caches run what they stored. An
// agent can plant such a file (git ignores them) and its code would run in the verifier, outside any sandbox,
// with an empty diff. So a command verifier runs with every such cache off or in a fresh folder of ours:
// only the pinned source can run.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface BytecodeFreeEnv {
  /** Set over the verifier's environment, after `verifier.env`. */
  env: Record<string, string>;
  /** Removes the empty cache folder. */
  dispose(): Promise<void>;
}

/** The variables that keep Python, Node and the usual TypeScript loaders from reading or writing compiled code. */
export async function bytecodeFreeEnv(): Promise<BytecodeFreeEnv> {
  // With a prefix, Python reads and writes bytecode only under it, never in `__pycache__` beside the source;
  // this one is new and empty, and with PYTHONDONTWRITEBYTECODE it stays so.
  const prefix = await mkdtemp(path.join(os.tmpdir(), 'elenchos-pycache-'));
  return {
    env: {
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONPYCACHEPREFIX: prefix,
      // Node 22+: outranks NODE_COMPILE_CACHE and module.enableCompileCache() alike.
      NODE_DISABLE_COMPILE_CACHE: '1',
      // tsx, @babel/register and jiti (1 and 2) keep transformed files on disk unless told not to.
      TSX_DISABLE_CACHE: '1',
      BABEL_DISABLE_CACHE: '1',
      JITI_CACHE: 'false',
      JITI_FS_CACHE: 'false',
    },
    dispose: () => rm(prefix, { recursive: true, force: true }),
  };
}
