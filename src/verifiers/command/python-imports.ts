// What a Python file loads: `import a.b`, `from .x import y`, `from pkg.mod import z`, and the calls that load
// by name or path (`importlib.import_module`, `__import__`, `runpy.run_path`, `spec_from_file_location`…)
// or widen where later imports look (`sys.path.insert`). An argument that is a literal, or a path built from
// `__file__` the usual ways (`os.path.dirname(__file__)`, `Path(__file__).parent / 'lib'`), is followed;
// anything else is only known at run time and is named with its line.
import { pathValue } from './python-paths.js';
import { pythonStatements, splitTop, stringOf, type PyToken } from './python-source.js';

export type PythonLoad =
  /** `import a.b` (level 0, no names) or `from ..a import x, y` (level 2, names x and y; `*` is no name). */
  | { kind: 'module'; module: string; level: number; names: string[]; line: number }
  /** A file run or loaded by its path (`runpy.run_path('x.py')`), repo-relative or absolute. */
  | { kind: 'file'; path: string; line: number }
  /** A folder added to `sys.path`, repo-relative or absolute. */
  | { kind: 'search'; path: string; line: number }
  /** A load whose target is only known at run time. */
  | { kind: 'dynamic'; text: string; line: number };

// Calls whose first positional argument (or, for these, the one at the index given) names a module or a file.
const BY_NAME: Record<string, number> = { import_module: 0, __import__: 0, run_module: 0, find_spec: 0 };
const BY_PATH: Record<string, number> = {
  run_path: 0,
  spec_from_file_location: 1,
  SourceFileLoader: 1,
  SourcelessFileLoader: 1,
  load_source: 1,
  load_compiled: 1,
};
const SEARCH_METHODS = new Set(['insert', 'append', 'extend']);

/** Every load of the Python file `file` (repo-relative: `__file__` and relative imports are read from it). */
export function pythonLoads(source: string, file: string): PythonLoad[] {
  const loads: PythonLoad[] = [];
  const bindings = new Map<string, string | null>();
  for (const statement of pythonStatements(source)) {
    const tokens = statement.tokens;
    const first = tokens[0];
    if (first?.kind === 'name' && first.value === 'import') loads.push(...importStatement(tokens, statement.line));
    else if (first?.kind === 'name' && first.value === 'from' && tokens.some((t) => t.kind === 'name' && t.value === 'import'))
      loads.push(...fromStatement(tokens, statement.line));
    else noteBinding(tokens, file, bindings);
    loads.push(...loadCalls(tokens, file, bindings));
  }
  return loads;
}

/** `import a.b as c, d` */
function importStatement(tokens: readonly PyToken[], line: number): PythonLoad[] {
  return splitTop(tokens.slice(1), ',').flatMap((part) => {
    const module = dotted(part);
    return module ? [{ kind: 'module' as const, module, level: 0, names: [], line }] : [];
  });
}

/** `from ..a.b import (x as y, z)` */
function fromStatement(tokens: readonly PyToken[], line: number): PythonLoad[] {
  const at = tokens.findIndex((t) => t.kind === 'name' && t.value === 'import');
  let level = 0;
  let i = 1;
  for (; i < at && tokens[i]!.kind === 'op' && /^\.+$/.test(tokens[i]!.value); i++) level += tokens[i]!.value.length;
  const module = dotted(tokens.slice(i, at)) ?? '';
  const names = splitTop(
    tokens.slice(at + 1).filter((t) => !(t.kind === 'op' && '()'.includes(t.value))),
    ',',
  )
    .map((part) => (part[0]?.kind === 'name' ? part[0].value : null))
    .filter((name): name is string => name !== null);
  return [{ kind: 'module', module, level, names, line }];
}

/** `a.b.c` (stopping at `as`), or null when the tokens are not a dotted name. */
function dotted(tokens: readonly PyToken[]): string | null {
  const parts: string[] = [];
  for (const [i, token] of tokens.entries()) {
    if (token.kind === 'name' && token.value === 'as') break;
    if (i % 2 === 0 ? token.kind !== 'name' : !(token.kind === 'op' && token.value === '.')) return null;
    if (token.kind === 'name') parts.push(token.value);
  }
  return parts.length > 0 ? parts.join('.') : null;
}

/** `HERE = os.path.dirname(__file__)`: a name later paths may be built from (null once it is bound to something else). */
function noteBinding(tokens: readonly PyToken[], file: string, bindings: Map<string, string | null>): void {
  const [name, eq] = tokens;
  if (name?.kind !== 'name' || eq?.kind !== 'op' || eq.value !== '=') return;
  const value = pathValue(tokens.slice(2), file, bindings);
  bindings.set(name.value, bindings.has(name.value) && bindings.get(name.value) !== value ? null : value);
}

/** The loads by name or path in one statement, and every `sys.path` change. */
function loadCalls(tokens: readonly PyToken[], file: string, bindings: ReadonlyMap<string, string | null>): PythonLoad[] {
  const out: PythonLoad[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== 'name') continue;
    if (isSysPath(tokens, i)) {
      out.push(...searchChange(tokens, i, file, bindings));
      continue;
    }
    const open = tokens[i + 1];
    if (open?.kind !== 'op' || open.value !== '(') continue;
    const args = callArguments(tokens, i + 1);
    const text = () => `${token.value}(${args.map(render).join(', ')})`;
    if (token.value in BY_NAME) {
      const literal = stringOf(args[BY_NAME[token.value]!] ?? []);
      if (literal === null) out.push({ kind: 'dynamic', text: text(), line: token.line });
      else
        out.push({
          kind: 'module',
          module: literal.replace(/^\.+/, ''),
          level: /^\.+/.exec(literal)?.[0].length ?? 0,
          names: [],
          line: token.line,
        });
    } else if (token.value in BY_PATH) {
      const value = pathValue(args[BY_PATH[token.value]!] ?? [], file, bindings);
      out.push(value === null ? { kind: 'dynamic', text: text(), line: token.line } : { kind: 'file', path: value, line: token.line });
    }
  }
  return out;
}

/** `sys.path` at `i` (and not `sys.path_hooks`, `os.sys.path` counts too). */
function isSysPath(tokens: readonly PyToken[], i: number): boolean {
  const [dot, pathName] = [tokens[i + 1], tokens[i + 2]];
  return tokens[i]!.value === 'sys' && dot?.kind === 'op' && dot.value === '.' && pathName?.kind === 'name' && pathName.value === 'path';
}

/** `sys.path.insert(0, X)`, `.append(X)`, `.extend([X, Y])`, `sys.path += [X]`, `sys.path[:0] = [X]`, `sys.path = [...]`. */
function searchChange(tokens: readonly PyToken[], i: number, file: string, bindings: ReadonlyMap<string, string | null>): PythonLoad[] {
  const line = tokens[i]!.line;
  const next = tokens[i + 3];
  const dynamic = (): PythonLoad[] => [{ kind: 'dynamic', text: render(tokens.slice(i)).slice(0, 80), line }];
  let values: PyToken[][];
  if (next?.kind === 'op' && next.value === '.' && tokens[i + 4]?.kind === 'name' && SEARCH_METHODS.has(tokens[i + 4]!.value)) {
    const args = callArguments(tokens, i + 5);
    const method = tokens[i + 4]!.value;
    values = method === 'insert' ? args.slice(1, 2) : method === 'append' ? args.slice(0, 1) : listItems(args[0] ?? []);
  } else if (next?.kind === 'op' && ['=', '+=', '['].includes(next.value)) {
    const eq = tokens.findIndex((t, j) => j > i && t.kind === 'op' && (t.value === '=' || t.value === '+='));
    values = eq < 0 ? [] : listItems(tokens.slice(eq + 1));
  } else return [];
  const out: PythonLoad[] = [];
  for (const value of values) {
    const dir = pathValue(value, file, bindings);
    if (dir === null) return dynamic();
    out.push({ kind: 'search', path: dir, line });
  }
  return out;
}

/** The items of a list or tuple literal (`[a, b]`), or null items when it is not one. */
function listItems(tokens: readonly PyToken[]): PyToken[][] {
  const [open, ...rest] = tokens;
  if (open?.kind !== 'op' || !'[('.includes(open.value)) return [[...tokens]];
  return splitTop(rest.slice(0, -1), ',').filter((item) => item.length > 0);
}

/** The positional arguments of the call whose `(` is at `open`. */
function callArguments(tokens: readonly PyToken[], open: number): PyToken[][] {
  let depth = 0;
  let close = tokens.length;
  for (let j = open; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind === 'op' && '([{'.includes(t.value)) depth++;
    if (t.kind === 'op' && ')]}'.includes(t.value) && --depth === 0) {
      close = j;
      break;
    }
  }
  return splitTop(tokens.slice(open + 1, close), ',').filter((arg) => !(arg[1]?.kind === 'op' && arg[1].value === '='));
}

/** Tokens as a person would write them: `os.environ.get("X", "y")`, not `os . environ . get ( … )`. */
function render(tokens: readonly PyToken[]): string {
  let out = '';
  let previous: PyToken | undefined;
  for (const token of tokens) {
    const text = token.kind === 'string' ? JSON.stringify(token.value) : token.value;
    const tight = token.kind === 'op' ? '.()[],:'.includes(token.value) : previous?.kind === 'op' && '.(['.includes(previous.value);
    out += out === '' || tight ? text : ` ${text}`;
    previous = token;
  }
  return out;
}
