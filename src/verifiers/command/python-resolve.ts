// Which files of the repository a Python import loads, the way the import system finds them on `sys.path`:
// each package's `__init__.py` on the way, the module as source (`x.py`), as bytecode with no source beside it
// (`x.pyc`, which Python runs as it is) or as an extension (`x.cpython-311-x86_64-linux-gnu.so`, `x.pyd`), and
// for `from a import b` the submodule `a/b` when there is one. Every candidate in every search folder counts,
// not only the first Python would take: a file pinned too many costs nothing, one too few is a way in.
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Finds modules under the folders of `sys.path` that lie in one repository, listing each folder once. */
export class PythonResolver {
  private readonly listings = new Map<string, Promise<Map<string, 'file' | 'dir'>>>();

  constructor(private readonly root: string) {}

  /** Files that `import <module>` (and `from <module> import <names>`) may load from `dir` (repo-relative). */
  async inFolder(dir: string, module: string, names: readonly string[]): Promise<string[]> {
    const parts = module === '' ? [] : module.split('.');
    const out: string[] = [];
    let current = dir;
    for (const part of parts) {
      const listing = await this.list(current);
      out.push(...moduleFiles(listing, part).map((name) => join(current, name)));
      if (listing.get(part) !== 'dir') return out;
      current = join(current, part);
      out.push(...(await this.initOf(current)));
    }
    // Here `current` is a package's folder (`from . import b` names the importing file's own): b may be a submodule.
    if (parts.length === 0) out.push(...(await this.initOf(current)));
    for (const name of names) if (name !== '*') out.push(...(await this.inFolder(current, name, [])));
    return [...new Set(out)];
  }

  /** A package folder's `__init__` in each form the import system runs. */
  private async initOf(dir: string): Promise<string[]> {
    return moduleFiles(await this.list(dir), '__init__').map((name) => join(dir, name));
  }

  private list(dir: string): Promise<Map<string, 'file' | 'dir'>> {
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = readdir(path.join(this.root, dir), { withFileTypes: true }).then(
        (entries) => new Map(entries.map((e) => [e.name, e.isDirectory() ? 'dir' : 'file'] as const)),
        () => new Map<string, 'file' | 'dir'>(),
      );
      this.listings.set(dir, listing);
    }
    return listing;
  }
}

/** The names in a folder the import system takes for module `name`: source, sourceless bytecode, extensions. */
function moduleFiles(listing: ReadonlyMap<string, 'file' | 'dir'>, name: string): string[] {
  const out: string[] = [];
  for (const [entry, kind] of listing) {
    if (kind !== 'file' || !entry.startsWith(name)) continue;
    const rest = entry.slice(name.length);
    if (['.py', '.pyw', '.pyc', '.pyd', '.so'].includes(rest) || /^\.[\w.-]+\.(so|pyd)$/.test(rest)) out.push(entry);
  }
  return out.sort();
}

function join(dir: string, name: string): string {
  return dir === '.' || dir === '' ? name : `${dir}/${name}`;
}
