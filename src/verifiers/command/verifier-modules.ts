// A command verifier's own code in the repository: the script `verifier.command` runs, and every file its
// interpreter loads from there, followed through Python imports, Node imports and shell `source`. Locked with
// the contract like the test file: an agent that edits `tests/checks.py`, which `tests/verify.py` imports,
// changes the verifier as surely as one that edits `verify.py`. Packages under a node_modules of the
// repository are named apart (the toolchain stamps them). What names its target only at run time is named
// with its line: `check` refuses it unless `verifier.inputs` lists what it may load.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { commandWords } from '../../process/command-string.js';
import { readTestFileText } from '../../util/regular-file.js';
import { unresolvedLine } from '../unresolved-load.js';
import { pythonLoads, type PythonLoad } from './python-imports.js';
import { PythonResolver } from './python-resolve.js';
import { shellLoads } from './shell-loads.js';
import { entryPoints, languageOf, type Entry, type Language } from './verifier-entries.js';

/** The verifier as configured: `verifier.command` (split as a shell would), `verifier.args`, `verifier.env`. */
export interface VerifierInvocation {
  command: string | undefined;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

export interface VerifierModules {
  /** Repo-relative files the verifier's interpreter may load. */
  files: string[];
  /** Repo-relative package folders under a node_modules (`node_modules/undici`). */
  packages: string[];
  /** One line per load only known at run time (`tests/verify.py:12: …; fix`). */
  unresolved: string[];
}

// Inline code (`python3 -c …`, `node -e …`) runs in the verifier's working folder, the repository root.
const INLINE_PY = '<inline>.py';
const INLINE_JS = '<inline>.mjs';

/** Follows the verifier's code from its entry points through everything it loads inside `root`. */
export async function verifierModules(root: string, invocation: VerifierInvocation): Promise<VerifierModules> {
  const walk = new ModuleWalk(root, invocation.env.PYTHONPATH);
  const words = commandWords(invocation.command ?? '');
  for (const entry of await entryPoints(root, [...words, ...invocation.args])) await walk.enter(entry);
  await walk.drain();
  return walk.result();
}

class ModuleWalk {
  private readonly files = new Set<string>();
  private readonly packages = new Set<string>();
  private readonly unresolved: string[] = [];
  private readonly queue: { file: string; language: Language | null }[] = [];
  private readonly python: PythonResolver;
  // `sys.path` as far as it is known: the folders scripts start in, PYTHONPATH, folders code adds.
  private readonly searchDirs: string[] = [];
  // Absolute imports seen so far: asked again of a folder added to sys.path later.
  private readonly imports: { module: string; names: string[] }[] = [];
  private node: import('../node-resolve.js').NodeResolver | null = null;

  constructor(
    private readonly root: string,
    pythonPath: string | undefined,
  ) {
    this.python = new PythonResolver(root);
    for (const dir of (pythonPath ?? '').split(':').filter(Boolean)) this.searchDirs.push(...this.inside(dir));
  }

  async enter(entry: Entry): Promise<void> {
    if (entry.kind === 'file') {
      if (entry.language === 'python') await this.addSearchDir(path.posix.dirname(entry.file));
      await this.add(entry.file, entry.language);
    } else if (entry.kind === 'python-module') {
      await this.addSearchDir('.');
      await this.loadPython({ kind: 'module', module: entry.module, level: 0, names: ['__main__'], line: 0 }, INLINE_PY);
    } else if (entry.kind === 'inline') {
      if (entry.language === 'python') await this.addSearchDir('.');
      await this.follow(entry.label, entry.language, entry.code, true);
    } else {
      await this.loadNode(INLINE_JS, entry.specifier);
    }
  }

  async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const { file, language } = this.queue.shift()!;
      if (!language) continue;
      const text = await readTestFileText(path.join(this.root, file), file).catch(() => null);
      if (text !== null) await this.follow(file, language, text, false);
    }
  }

  result(): VerifierModules {
    return { files: [...this.files].sort(), packages: [...this.packages].sort(), unresolved: this.unresolved };
  }

  private async addScript(file: string): Promise<void> {
    const language = await languageOf(this.root, file);
    if (language === 'python') await this.addSearchDir(path.posix.dirname(file));
    await this.add(file, language);
  }

  private async add(file: string, language?: Language | null): Promise<void> {
    if (this.files.has(file)) return;
    this.files.add(file);
    this.queue.push({ file, language: language ?? (await languageOf(this.root, file)) });
  }

  /** Follows what `text` loads; inline code (`python3 -c …`) is read as a file in the repository's root folder. */
  private async follow(file: string, language: Language, text: string, inline: boolean): Promise<void> {
    if (language === 'python')
      for (const load of pythonLoads(text, inline ? INLINE_PY : file)) await this.loadPython(load, inline ? INLINE_PY : file, file);
    else if (language === 'node') {
      const { moduleReferences } = await import('../js-imports.js');
      const found = moduleReferences(text, inline ? INLINE_JS : file);
      for (const reference of found.references) await this.loadNode(inline ? INLINE_JS : file, reference.specifier);
      for (const d of found.dynamic) this.refuse(file, d.line, d.text);
    } else {
      const loads = shellLoads(text, inline ? null : file);
      for (const s of loads.sources) {
        if (s.target === null) this.refuse(file, s.line, `source ${s.text}`);
        else for (const f of await this.existing(s.target)) await this.add(f, 'shell');
      }
      // A file a command names is a script it runs (`python3 tests/check.py`): its folder starts sys.path.
      for (const word of loads.words) for (const f of await this.existing(word)) await this.addScript(f);
    }
  }

  /** `from`: the file whose folder relative imports start in; `label`: how a refusal names it. */
  private async loadPython(load: PythonLoad, from: string, label = from): Promise<void> {
    if (load.kind === 'dynamic') return this.refuse(label, load.line, load.text);
    if (load.kind === 'file') {
      for (const f of await this.existing(load.path)) await this.add(f, 'python');
      return;
    }
    if (load.kind === 'search') return this.addSearchDir(load.path);
    if (load.level > 0) {
      let base = path.posix.dirname(from);
      for (let n = 1; n < load.level; n++) base = path.posix.dirname(base);
      for (const f of await this.python.inFolder(base, load.module, load.names)) await this.add(f);
      return;
    }
    this.imports.push({ module: load.module, names: load.names });
    for (const dir of this.searchDirs) for (const f of await this.python.inFolder(dir, load.module, load.names)) await this.add(f);
  }

  private async addSearchDir(dir: string): Promise<void> {
    for (const inside of this.inside(dir)) {
      if (this.searchDirs.includes(inside)) continue;
      this.searchDirs.push(inside);
      for (const { module, names } of this.imports) for (const f of await this.python.inFolder(inside, module, names)) await this.add(f);
    }
  }

  private async loadNode(from: string, specifier: string): Promise<void> {
    const { NodeResolver } = await import('../node-resolve.js');
    this.node ??= new NodeResolver(this.root);
    const resolved = await this.node.resolve(from, specifier);
    for (const pkg of resolved.packages) this.packages.add(pkg);
    for (const f of resolved.files) if (!f.split('/').includes('node_modules')) await this.add(f);
  }

  private refuse(file: string, line: number, text: string): void {
    this.unresolved.push(unresolvedLine(file, line, text));
  }

  /** `target` (repo-relative or absolute) as a regular file inside the repository, or nothing. */
  private async existing(target: string): Promise<string[]> {
    const [relative] = this.inside(target);
    if (relative === undefined || relative === '.') return [];
    const file = await stat(path.join(this.root, relative)).then(
      (info) => info.isFile(),
      () => false,
    );
    return file ? [relative] : [];
  }

  private inside(target: string): string[] {
    const relative = path.relative(this.root, path.resolve(this.root, target)).split(path.sep).join('/') || '.';
    return relative === '..' || relative.startsWith('../') || path.isAbsolute(relative) ? [] : [relative];
  }
}
