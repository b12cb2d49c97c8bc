// A path a Python file builds for `sys.path` or `runpy.run_path`, read from its tokens the usual ways:
// literals (relative to the verifier's working folder, the repository root), `__file__`, names bound to one,
// `os.path.dirname/abspath/realpath/normpath/join`, `pathlib.Path(…)`, `.parent`, `.parents[n]`, `.resolve()`,
// `.joinpath(…)`, `/` and `+`. Anything else is only known at run time.
import path from 'node:path';
import { matching, splitTop, stringOf, type PyToken } from './python-source.js';

/** A path, a function or module named by a dotted chain (`os.path.dirname`), or a method of a path (`p.resolve`). */
type Value = { path: string } | { callee: string } | { method: string; of: string } | null;

/**
 * A path expression's value, repo-relative (or absolute), or null when it is not one of the usual spellings:
 * a literal (relative to the verifier's working folder, the repository root), `__file__`, a name bound to
 * one, `os.path.dirname/abspath/realpath/normpath/join`, `Path(…)`, `.parent`, `.parents[n]`, `.resolve()`,
 * `.absolute()`, `.joinpath(…)`, `/` and `+` with a literal, `os.getcwd()` and `Path.cwd()`.
 */
export function pathValue(tokens: readonly PyToken[], file: string, bindings: ReadonlyMap<string, string | null>): string | null {
  const parts = splitOperands(tokens);
  if (!parts) return null;
  let value = operand(parts.operands[0]!, file, bindings);
  for (const [n, op] of parts.operators.entries()) {
    const right = operand(parts.operands[n + 1]!, file, bindings);
    if (value === null || right === null) return null;
    value = op === '/' ? joinPath(value, right) : value + right;
  }
  return value;
}

/** `a / b + c` → operands and operators at the top level, or null for other operators. */
function splitOperands(tokens: readonly PyToken[]): { operands: PyToken[][]; operators: string[] } | null {
  const operands: PyToken[][] = [[]];
  const operators: string[] = [];
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'op' && '([{'.includes(t.value)) depth++;
    if (t.kind === 'op' && ')]}'.includes(t.value)) depth--;
    if (depth === 0 && t.kind === 'op' && (t.value === '/' || t.value === '+')) {
      operators.push(t.value);
      operands.push([]);
    } else if (depth === 0 && t.kind === 'op' && !'.()[]'.includes(t.value)) return null;
    else operands.at(-1)!.push(t);
  }
  return operands.every((o) => o.length > 0) ? { operands, operators } : null;
}

/** One operand: a literal, a name or a parenthesised expression, then attributes, calls and an index. */
function operand(tokens: readonly PyToken[], file: string, bindings: ReadonlyMap<string, string | null>): string | null {
  const first = tokens[0]!;
  let value: Value;
  let i = 1;
  if (first.kind === 'string') {
    const after = tokens.findIndex((t) => t.kind !== 'string');
    const literals = after < 0 ? tokens : tokens.slice(0, after);
    const joined = stringOf(literals);
    value = joined === null ? null : { path: joined };
    i = literals.length;
  } else if (first.kind === 'op' && first.value === '(') {
    const close = matching(tokens, 0);
    const inner = pathValue(tokens.slice(1, close), file, bindings);
    value = inner === null ? null : { path: inner };
    i = close + 1;
  } else if (first.kind === 'name') {
    const bound = bindings.get(first.value);
    value = first.value === '__file__' ? { path: file } : bound ? { path: bound } : { callee: first.value };
  } else return null;
  while (i < tokens.length && value !== null) {
    const t = tokens[i]!;
    if (t.kind === 'op' && t.value === '(') {
      const close = matching(tokens, i);
      const args = splitTop(tokens.slice(i + 1, close), ',').filter((a) => a.length > 0);
      value = call(
        value,
        args.map((a) => pathValue(a, file, bindings)),
      );
      i = close + 1;
    } else if (t.kind === 'op' && t.value === '.' && tokens[i + 1]?.kind === 'name') {
      value = attribute(value, tokens[i + 1]!.value);
      i += 2;
    } else if (t.kind === 'op' && t.value === '[' && isMethod(value, 'parents')) {
      const index = tokens[i + 1];
      if (index?.kind !== 'number' || tokens[i + 2]?.value !== ']' || !/^\d+$/.test(index.value)) return null;
      value = { path: ancestor(value.of, Number(index.value) + 1) };
      i += 3;
    } else return null;
  }
  return value !== null && 'path' in value ? value.path : null;
}

/** What calling `value` with `args` gives. */
function call(value: NonNullable<Value>, args: (string | null)[]): Value {
  if ('path' in value || args.some((a) => a === null)) return null;
  const paths = args as string[];
  if ('method' in value) {
    if (['resolve', 'absolute', 'expanduser'].includes(value.method) && paths.length === 0) return { path: value.of };
    return value.method === 'joinpath' ? { path: paths.reduce(joinPath, value.of) } : null;
  }
  const name = value.callee.split('.').at(-1)!;
  if (['getcwd', 'cwd'].includes(name) && paths.length === 0) return { path: '.' };
  if (name === 'dirname' && paths.length === 1) return { path: path.posix.dirname(paths[0]!) };
  if (['abspath', 'realpath', 'normpath', 'fspath', 'str', 'Path', 'PurePath', 'PosixPath'].includes(name) && paths.length === 1)
    return { path: paths[0]! };
  return name === 'join' && paths.length > 0 ? { path: paths.reduce(joinPath) } : null;
}

/** `.parent`, `.parents`, a method of a path, or one more link of a dotted name. */
function attribute(value: NonNullable<Value>, name: string): Value {
  if ('callee' in value) return { callee: `${value.callee}.${name}` };
  if ('method' in value) return null;
  return name === 'parent' ? { path: path.posix.dirname(value.path) } : { method: name, of: value.path };
}

function isMethod(value: Value, name: string): value is { method: string; of: string } {
  return value !== null && 'method' in value && value.method === name;
}

function ancestor(of: string, levels: number): string {
  let dir = of;
  for (let n = 0; n < levels; n++) dir = path.posix.dirname(dir);
  return dir;
}

function joinPath(a: string, b: string): string {
  return b.startsWith('/') ? b : path.posix.join(a, b);
}
