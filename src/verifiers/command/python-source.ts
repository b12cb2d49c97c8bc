// Python source read as tokens, as Python's own tokenizer splits it: names, operators, string literals (with
// their value), comments and line continuations gone. No Python runs to read it (`check` starts nothing, and
// an interpreter found on the PATH of a worktree is the agent's to choose). Enough for the import system:
// the statements that load modules and the calls that name a module or a path.

export type PyToken =
  | { kind: 'name'; value: string; line: number }
  | { kind: 'string'; value: string; line: number; fstring: boolean }
  | { kind: 'op'; value: string; line: number }
  | { kind: 'number'; value: string; line: number };

/** One logical statement: its tokens (a `;` ends one, so does a compound header's `:` before a simple statement). */
export interface PyStatement {
  tokens: PyToken[];
  line: number;
}

const OPERATORS = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '->',
  ':=',
  '**',
  '//',
  '<<',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
];
const COMPOUND = new Set(['if', 'elif', 'else', 'try', 'except', 'finally', 'with', 'for', 'while', 'def', 'class', 'async']);

/** The statements of `source`, in order. A string that never ends runs to the end of the file, as a reader would see it. */
export function pythonStatements(source: string): PyStatement[] {
  const statements: PyStatement[] = [];
  let current: PyToken[] = [];
  let depth = 0;
  let line = 1;
  // Lambdas of this statement still waiting for their `:` (outside brackets: inside, no colon ends a header).
  let lambdas = 0;
  const end = () => {
    if (current.length > 0) statements.push({ tokens: current, line: current[0]!.line });
    current = [];
    lambdas = 0;
  };
  for (let i = 0; i < source.length;) {
    const ch = source[i]!;
    if (ch === '\n') {
      line++;
      i++;
      if (depth === 0) end();
      continue;
    }
    if (ch === '\\' && source[i + 1] === '\n') {
      line++;
      i += 2;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\f') {
      i++;
      continue;
    }
    if (ch === '#') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    const string = readString(source, i);
    if (string) {
      current.push({ kind: 'string', value: string.value, line, fstring: string.fstring });
      line += countNewlines(source, i, string.end);
      i = string.end;
      continue;
    }
    const name = /^[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*/.exec(source.slice(i, i + 200));
    if (name) {
      if (depth === 0 && name[0] === 'lambda') lambdas++;
      current.push({ kind: 'name', value: name[0], line });
      i += name[0].length;
      continue;
    }
    const number = /^\d[\w.]*/.exec(source.slice(i, i + 100));
    if (number) {
      current.push({ kind: 'number', value: number[0], line });
      i += number[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i)) ?? ch;
    if ('([{'.includes(op)) depth++;
    if (')]}'.includes(op)) depth = Math.max(0, depth - 1);
    i += op.length;
    if (depth === 0 && op === ';') {
      end();
      continue;
    }
    current.push({ kind: 'op', value: op, line });
    if (depth === 0 && op === ':') {
      // `if x: import y` — what follows a compound header's colon on the same line is a statement of its own.
      if (lambdas > 0) lambdas--;
      else if (current[0]?.kind === 'name' && COMPOUND.has(current[0].value)) end();
    }
  }
  end();
  return statements;
}

/** A string literal with any prefix (r, b, u, f and their pairs) at `at`: its value and where it ends. */
function readString(source: string, at: number): { value: string; end: number; fstring: boolean } | null {
  const prefix = /^(?:[rRbBuUfF]{1,2})?(?=['"])/.exec(source.slice(at, at + 3));
  if (!prefix) return null;
  const raw = /r/i.test(prefix[0]);
  const start = at + prefix[0].length;
  const quote = source.startsWith(source[start]!.repeat(3), start) ? source[start]!.repeat(3) : source[start]!;
  let value = '';
  for (let i = start + quote.length; i < source.length; i++) {
    if (source.startsWith(quote, i)) return { value, end: i + quote.length, fstring: /f/i.test(prefix[0]) };
    const ch = source[i]!;
    if (quote.length === 1 && ch === '\n') return { value, end: i, fstring: /f/i.test(prefix[0]) };
    if (ch === '\\' && i + 1 < source.length) {
      value += raw ? ch + source[i + 1] : source[i + 1] === 'n' ? '\n' : source[i + 1];
      i++;
      continue;
    }
    value += ch;
  }
  return { value, end: source.length, fstring: /f/i.test(prefix[0]) };
}

function countNewlines(source: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (source[i] === '\n') n++;
  return n;
}

/** Splits at `separator` outside brackets. */
export function splitTop(tokens: readonly PyToken[], separator: string): PyToken[][] {
  const parts: PyToken[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'op' && '([{'.includes(t.value)) depth++;
    if (t.kind === 'op' && ')]}'.includes(t.value)) depth--;
    if (depth === 0 && t.kind === 'op' && t.value === separator) parts.push([]);
    else parts.at(-1)!.push(t);
  }
  return parts;
}

/** The value of tokens that are only string literals (adjacent ones concatenate); null for anything else. */
export function stringOf(tokens: readonly PyToken[]): string | null {
  if (tokens.length === 0 || !tokens.every((t) => t.kind === 'string' && !t.fstring)) return null;
  return tokens.map((t) => t.value).join('');
}

/** The index of the bracket that closes the one at `open` (the end when it never closes). */
export function matching(tokens: readonly PyToken[], open: number): number {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind === 'op' && '([{'.includes(t.value)) depth++;
    if (t.kind === 'op' && ')]}'.includes(t.value) && --depth === 0) return j;
  }
  return tokens.length;
}
