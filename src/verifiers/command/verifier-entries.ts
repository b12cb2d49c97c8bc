// Where a command verifier's own code starts: the script `verifier.command` names (its shebang says which
// interpreter reads it), the script an interpreter is given (`python3 tests/verify.py`, `node --import
// ./tests/setup.mjs tests/verify.mjs`, `bash tests/verify.sh`), a module (`python3 -m tests.verify`), inline
// code (`python3 -c …`, `node -e …`, `sh -c …`), and any other argument naming a file of the repository
// (`npx tsx tests/verify.ts`): Elenchos cannot know every launcher's flags, and pinning a file the verifier
// only reads costs nothing.
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';

export type Language = 'python' | 'node' | 'shell';

export type Entry =
  | { kind: 'file'; file: string; language: Language | null }
  | { kind: 'python-module'; module: string }
  | { kind: 'inline'; language: Language; code: string; label: string }
  | { kind: 'node-specifier'; specifier: string };

const PYTHON = /^python(\d+(\.\d+)?)?$/;
const NODE = /^(node|nodejs)$/;
const SHELL = /^(sh|bash|dash|zsh|ksh|ash|mksh)$/;
// Options whose value is the next word (so the word after them is no script).
const PYTHON_VALUE = new Set(['-W', '-X', '-Q']);
const NODE_VALUE = new Set(['-C', '--conditions', '--input-type', '--env-file', '--title', '--stack-size', '--max-old-space-size']);
const NODE_PRELOAD = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader']);
const SHELL_VALUE = new Set(['-o', '+o', '-O', '+O']);

/** The entry points of the command `argv` (executable first) run in `root`. */
export async function entryPoints(root: string, argv: readonly string[]): Promise<Entry[]> {
  const [executable, ...rest] = argv;
  if (executable === undefined) return [];
  const base = path.basename(executable);
  if (base === 'env') {
    // `env [-i] [NAME=value…] program args…`
    let k = 0;
    while (k < rest.length && /^-|^\w+=/.test(rest[k]!)) k++;
    return entryPoints(root, rest.slice(k));
  }
  if (PYTHON.test(base)) return interpreterEntries(root, 'python', rest);
  if (NODE.test(base)) return interpreterEntries(root, 'node', rest);
  if (SHELL.test(base)) return interpreterEntries(root, 'shell', rest);
  const script = executable.includes('/') ? await repoFile(root, executable) : null;
  if (script) {
    const shebang = await shebangOf(root, script);
    const words = shebang ?? [];
    const interpreter = path.basename(words[0] === undefined ? '' : words[0]) === 'env' ? words.slice(1).filter((w) => w !== '-S') : words;
    const language = (await languageOf(root, script)) ?? null;
    const viaShebang = interpreter.length > 1 && language ? await interpreterEntries(root, language, interpreter.slice(1), false) : [];
    return [{ kind: 'file', file: script, language }, ...viaShebang, ...(await fileArguments(root, rest))];
  }
  return fileArguments(root, rest);
}

/**
 * An interpreter's arguments: its preloads, inline code, module or script, and any later argument naming a
 * file. `withScript: false` reads a shebang's options (the script itself is the file that holds them).
 */
async function interpreterEntries(root: string, language: Language, args: readonly string[], withScript = true): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (let i = 0; i < args.length; i++) {
    const [flag, attached] = splitOption(args[i]!);
    const value = () => attached ?? args[++i] ?? '';
    if (language === 'python' && flag === '-m') return [...entries, { kind: 'python-module', module: value() }];
    if (language === 'python' && flag === '-c') return [...entries, inline('python', value(), '-c')];
    if (language === 'node' && ['-e', '--eval', '-p', '--print'].includes(flag)) return [...entries, inline('node', value(), flag)];
    if (language === 'shell' && flag === '-c') return [...entries, inline('shell', value(), '-c')];
    if (language === 'node' && NODE_PRELOAD.has(flag)) {
      entries.push({ kind: 'node-specifier', specifier: value() });
      continue;
    }
    const takesValue = { python: PYTHON_VALUE, node: NODE_VALUE, shell: SHELL_VALUE }[language];
    if (takesValue.has(flag)) {
      value();
      continue;
    }
    if (flag.startsWith('-') || flag.startsWith('+')) continue;
    if (!withScript) return entries;
    const script = await repoFile(root, args[i]!);
    return [
      ...entries,
      ...(script ? [{ kind: 'file' as const, file: script, language }] : []),
      ...(await fileArguments(root, args.slice(i + 1))),
    ];
  }
  return entries;
}

/** Arguments (and `--opt=value` values) that name a regular file inside the repository. */
async function fileArguments(root: string, args: readonly string[]): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (const arg of args) {
    const [, attached] = splitOption(arg);
    const file = await repoFile(root, attached ?? arg);
    if (file) entries.push({ kind: 'file', file, language: await languageOf(root, file) });
  }
  return entries;
}

function inline(language: Language, code: string, flag: string): Entry {
  return { kind: 'inline', language, code, label: `verifier.command (${flag})` };
}

/** `--import=./x.mjs` → ['--import', './x.mjs']; anything else → [word, undefined]. */
function splitOption(word: string): [string, string | undefined] {
  const eq = word.indexOf('=');
  return word.startsWith('--') && eq > 0 ? [word.slice(0, eq), word.slice(eq + 1)] : [word, undefined];
}

/** `word` as a repo-relative regular file, or null (outside the repository, missing, a folder). */
export async function repoFile(root: string, word: string): Promise<string | null> {
  if (word === '' || word.includes('\0')) return null;
  const relative = path.relative(root, path.resolve(root, word)).split(path.sep).join('/');
  if (relative === '' || relative === '..' || relative.startsWith('../') || path.isAbsolute(relative)) return null;
  const isFile = await stat(path.join(root, relative)).then(
    (info) => info.isFile(),
    () => false,
  );
  return isFile ? relative : null;
}

/** The language of a repository file: by its extension, else by the interpreter its shebang names; null for data. */
export async function languageOf(root: string, file: string): Promise<Language | null> {
  if (/\.pyw?$/.test(file)) return 'python';
  if (/\.[cm]?[jt]sx?$/.test(file)) return 'node';
  if (/\.(sh|bash|zsh|ksh)$/.test(file)) return 'shell';
  if (path.posix.extname(file) !== '') return null;
  const words = await shebangOf(root, file);
  const named = words?.map((w) => path.basename(w)).find((w) => w !== 'env' && !w.startsWith('-'));
  if (!named) return null;
  if (PYTHON.test(named)) return 'python';
  if (NODE.test(named) || ['tsx', 'ts-node', 'bun', 'deno'].includes(named)) return 'node';
  return SHELL.test(named) ? 'shell' : null;
}

/** The words of a file's `#!` line, or null when it has none. */
async function shebangOf(root: string, file: string): Promise<string[] | null> {
  // Non-blocking: a FIFO planted under the name must not hang `check`.
  const handle = await open(path.join(root, file), constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return null;
  try {
    if (!(await handle.stat()).isFile()) return null;
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const first = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0]!;
    return first.startsWith('#!') ? first.slice(2).trim().split(/\s+/).filter(Boolean) : null;
  } finally {
    await handle.close();
  }
}
