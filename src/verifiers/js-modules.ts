// Every module a JavaScript or TypeScript file loads from the repository, transitively: each file read with
// the TypeScript parser (js-imports.ts), each specifier resolved as Node and its TypeScript loaders would
// (node-resolve.ts). Packages under a node_modules are named apart; loads only known at run time are named
// with their line.
import { followFiles } from '../util/follow-files.js';
import { moduleReferences } from './js-imports.js';
import { NodeResolver } from './node-resolve.js';
import { unresolvedLine } from './unresolved-load.js';

export interface FollowedModules {
  /** Repo-relative files reached from the start (the start itself not listed), sorted. */
  files: string[];
  /** Repo-relative package folders under a node_modules (`node_modules/lodash`), sorted. */
  packages: string[];
  /** One line per load whose target is only known at run time. */
  unresolved: string[];
}

const CODE = /\.[cm]?[jt]sx?$/;

/** What `start` (repo-relative) loads inside `root`, followed through every file it reaches. */
export async function followJsModules(root: string, start: string): Promise<FollowedModules> {
  const resolver = new NodeResolver(root);
  const packages = new Set<string>();
  const unresolved: string[] = [];
  // A missing import is the runner's error to report, not ours.
  const files = await followFiles(root, start, async (text, current) => {
    if (!CODE.test(current)) return [];
    const found = moduleReferences(text, current);
    for (const d of found.dynamic) unresolved.push(unresolvedLine(current, d.line, d.text));
    const targets: string[] = [];
    for (const reference of found.references) {
      const resolved = await resolver.resolve(current, reference.specifier);
      for (const pkg of resolved.packages) packages.add(pkg);
      targets.push(...resolved.files.filter((file) => !file.split('/').includes('node_modules')));
    }
    return targets;
  });
  return { files: files.sort(), packages: [...packages].sort(), unresolved };
}
