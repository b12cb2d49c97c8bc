// Which files of the repository a module specifier may load, the way Node resolves it (and the TypeScript
// loaders in front of Node: tsx, Playwright's Babel, ts-node): a relative path with every spelling they try
// (`./x` is `x.js`, `x.ts`, `x/index.js`…; `./x.js` may be `x.ts`), a package-internal `#name` through the
// nearest package.json's "imports", the package's own name through its "exports", and a tsconfig's `paths`.
// Every candidate that exists is returned, not only the first: pinning one file too many costs nothing, one
// too few lets an agent edit the file that really runs. A package under node_modules is named apart: it is
// the toolchain (stamped), not the contract.
import { builtinModules } from 'node:module';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface ResolvedModule {
  /** Repo-relative files (forward slashes) the specifier may load. */
  files: string[];
  /** Repo-relative folders of packages under a node_modules of the repository (`node_modules/lodash`). */
  packages: string[];
}

const EXTENSIONS = ['.js', '.mjs', '.cjs', '.json', '.node', '.ts', '.mts', '.cts', '.tsx', '.jsx'];
const BUILTIN = new Set(builtinModules);
const NONE: ResolvedModule = { files: [], packages: [] };

/** Resolves specifiers from files of one repository, reading each package.json and tsconfig once. */
export class NodeResolver {
  private readonly json = new Map<string, Promise<unknown>>();
  private readonly tsOptions = new Map<string, Promise<ts.CompilerOptions | null>>();

  constructor(private readonly root: string) {}

  /** What `specifier`, written in the repo-relative file `from`, may load. */
  async resolve(from: string, specifier: string): Promise<ResolvedModule> {
    if (specifier.startsWith('node:') || BUILTIN.has(specifier) || specifier === '') return NONE;
    const dir = path.posix.dirname(from);
    if (specifier.startsWith('file:')) return this.relative(this.inRoot(fileURLToPath(specifier)));
    if (specifier.startsWith('/')) return this.relative(this.inRoot(specifier));
    if (/^\.\.?(\/|$)/.test(specifier)) return this.relative(path.posix.normalize(path.posix.join(dir, specifier)));
    if (specifier.startsWith('#')) return this.packageImport(from, specifier);
    return this.bare(from, specifier);
  }

  /** Every existing spelling of a repo-relative path (null: outside the repository, nothing). */
  private async relative(target: string | null): Promise<ResolvedModule> {
    if (target === null || target === '..' || target.startsWith('../')) return NONE;
    const stem = target.replace(/\.(c|m)?(j|t)sx?$/, '');
    const spellings = [
      target,
      ...EXTENSIONS.map((ext) => target + ext),
      ...(stem !== target ? EXTENSIONS.map((ext) => stem + ext) : []),
      ...EXTENSIONS.map((ext) => `${target}/index${ext}`),
    ];
    const files = await this.existing(spellings);
    const main = await this.packageMain(target);
    return { files: [...new Set([...files, ...main])], packages: [] };
  }

  /** A folder required as a package: its package.json and what its "main" names. */
  private async packageMain(dir: string): Promise<string[]> {
    const manifest = `${dir}/package.json`;
    const pkg = await this.readJson(manifest);
    if (!isRecord(pkg)) return [];
    const main = typeof pkg.main === 'string' ? (await this.relative(path.posix.normalize(path.posix.join(dir, pkg.main)))).files : [];
    return [manifest, ...main];
  }

  /** `#name` through the "imports" of the nearest package.json: every target under every condition. */
  private async packageImport(from: string, specifier: string): Promise<ResolvedModule> {
    const found = await this.nearestPackage(from);
    if (!found || !isRecord(found.pkg.imports)) return NONE;
    return this.mapped(found.dir, from, mappedTargets(found.pkg.imports, specifier));
  }

  /** A bare specifier: the package's own name, a tsconfig path, or a package of a node_modules. */
  private async bare(from: string, specifier: string): Promise<ResolvedModule> {
    const name = packageName(specifier);
    const own = await this.nearestPackage(from);
    if (own && own.pkg.name === name && own.pkg.exports !== undefined) {
      const subpath = specifier === name ? '.' : `.${specifier.slice(name.length)}`;
      return this.mapped(own.dir, from, mappedTargets(exportsMap(own.pkg.exports), subpath));
    }
    const viaPaths = await this.tsconfigPaths(from, specifier);
    if (viaPaths.length > 0) return { files: viaPaths, packages: [] };
    for (let dir = path.posix.dirname(from); ; dir = path.posix.dirname(dir)) {
      const candidate = dir === '.' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (await isDir(path.join(this.root, candidate))) return { files: [], packages: [candidate] };
      if (dir === '.' || dir === '/') return NONE;
    }
  }

  /** The files `targets` (relative to the package folder, or bare) name. */
  private async mapped(pkgDir: string, from: string, targets: string[]): Promise<ResolvedModule> {
    const out: ResolvedModule = { files: [], packages: [] };
    for (const target of targets) {
      const one = target.startsWith('./')
        ? { files: await this.existing([path.posix.normalize(path.posix.join(pkgDir, target))]), packages: [] }
        : await this.bare(from, target);
      out.files.push(...one.files);
      out.packages.push(...one.packages);
    }
    return out;
  }

  /** What the nearest tsconfig's `paths` and `baseUrl` make of a bare specifier (TypeScript's own resolver), inside the repository. */
  private async tsconfigPaths(from: string, specifier: string): Promise<string[]> {
    const options = await this.compilerOptions(from);
    if (!options || (!options.paths && !options.baseUrl)) return [];
    const resolved = ts.resolveModuleName(specifier, path.join(this.root, from), options, ts.sys).resolvedModule;
    const file = resolved ? this.inRoot(resolved.resolvedFileName) : null;
    return file && !file.split('/').includes('node_modules') ? [file] : [];
  }

  private compilerOptions(from: string): Promise<ts.CompilerOptions | null> {
    const dir = path.posix.dirname(from);
    let options = this.tsOptions.get(dir);
    if (!options) {
      options = (async () => {
        const config = await this.nearest(from, ['tsconfig.json', 'jsconfig.json']);
        if (!config) return null;
        const absolute = path.join(this.root, config);
        const read = ts.readConfigFile(absolute, ts.sys.readFile);
        if (read.error) return null;
        const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(absolute), undefined, absolute);
        return { ...parsed.options, allowJs: true, resolveJsonModule: true, moduleResolution: ts.ModuleResolutionKind.Bundler };
      })();
      this.tsOptions.set(dir, options);
    }
    return options;
  }

  private async nearestPackage(from: string): Promise<{ dir: string; pkg: Record<string, unknown> } | null> {
    const manifest = await this.nearest(from, ['package.json']);
    const pkg = manifest ? await this.readJson(manifest) : null;
    return manifest && isRecord(pkg) ? { dir: path.posix.dirname(manifest), pkg } : null;
  }

  /** The repo-relative path of the first of `names` in `from`'s folder or above, inside the repository. */
  private async nearest(from: string, names: string[]): Promise<string | null> {
    for (let dir = path.posix.dirname(from); ; dir = path.posix.dirname(dir)) {
      const found = await this.existing(names.map((name) => (dir === '.' ? name : `${dir}/${name}`)));
      if (found.length > 0) return found[0]!;
      if (dir === '.' || dir === '/') return null;
    }
  }

  private readJson(file: string): Promise<unknown> {
    let value = this.json.get(file);
    if (!value) {
      value = readFile(path.join(this.root, file), 'utf8')
        .then(
          (text) => JSON.parse(text) as unknown,
          () => null,
        )
        .catch(() => null);
      this.json.set(file, value);
    }
    return value;
  }

  private async existing(spellings: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const spelling of [...new Set(spellings)]) if (await isFile(path.join(this.root, spelling))) out.push(spelling);
    return out;
  }

  private inRoot(absolute: string): string | null {
    const relative = path.relative(this.root, path.resolve(this.root, absolute)).split(path.sep).join('/');
    return relative.startsWith('../') || relative === '..' || path.isAbsolute(relative) ? null : relative;
  }
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** "exports" as a map of subpaths (a string, array or conditions object is the `.` entry). */
function exportsMap(exports: unknown): Record<string, unknown> {
  if (isRecord(exports) && Object.keys(exports).some((key) => key.startsWith('.'))) return exports;
  return { '.': exports };
}

/**
 * Every target a subpath map gives `key`: the exact entry, else each pattern (`#lib/*`, `./feature/*.js`)
 * that matches, with its `*` filled in. Every condition counts (`node`, `import`, `require`, `default`,
 * custom ones): which one Node picks depends on flags the lock does not see.
 */
export function mappedTargets(map: Record<string, unknown>, key: string): string[] {
  const entries: [unknown, string][] = [];
  if (key in map) entries.push([map[key], '']);
  else {
    for (const [pattern, value] of Object.entries(map)) {
      const star = pattern.indexOf('*');
      if (star < 0) continue;
      const [head, tail] = [pattern.slice(0, star), pattern.slice(star + 1)];
      if (key.length >= head.length + tail.length && key.startsWith(head) && key.endsWith(tail))
        entries.push([value, key.slice(head.length, key.length - tail.length)]);
    }
  }
  const out: string[] = [];
  const collect = (value: unknown, fill: string): void => {
    if (typeof value === 'string') out.push(value.replaceAll('*', fill));
    else if (Array.isArray(value)) for (const item of value) collect(item, fill);
    else if (isRecord(value)) for (const item of Object.values(value)) collect(item, fill);
  };
  for (const [value, fill] of entries) collect(value, fill);
  return [...new Set(out)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function isDir(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
