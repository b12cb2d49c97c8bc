// The names of the layout that git/ needs too (evidence/layout.ts, above git/, has the rest): Elenchos's
// folder in a repository, and the files of a stored workspace (an attempt's `workspace/` folder).

/** The folder Elenchos owns in a repository (never committed: listed in .git/info/exclude). */
export const ELENCHOS_DIR_NAME = '.elenchos';

/** `.elenchos/runs/` (the evidence) and `.elenchos/workspaces/` (the worktrees of runs going on): never watched as the product's. */
export const RUNS_DIR_NAME = 'runs';
export const WORKSPACES_DIR_NAME = 'workspaces';

/** The folder of an attempt that holds them. */
export const WORKSPACE_DIR_NAME = 'workspace';

export const WORKSPACE_FILES = { base: 'base.txt', diff: 'diff.patch', untracked: 'untracked.tar.gz' } as const;

/** `.elenchos/window/`: the marker files the window watch writes to confirm it saw everything (git/window-watch.ts). */
export const WINDOW_MARKER_DIR_NAME = 'window';
