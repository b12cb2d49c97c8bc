// What a shell script loads: the files it reads with `source` / `.`, and every word of its commands that names
// a file (`python3 tests/check.py`, `"$DIR/lib/helpers.sh"`). The script's own folder, spelt the usual ways
// (`$(dirname "$0")`, `${BASH_SOURCE%/*}`, `$(cd "$(dirname "$0")" && pwd)`, or a variable holding one of
// them), is known; any other expansion is only known at run time. A `source` of such a path is named with
// its line, since what it loads cannot be pinned.

export interface ShellSource {
  /** The sourced path (repo-relative or absolute), or null when it is only known at run time. */
  target: string | null;
  /** The word as written. */
  text: string;
  line: number;
}

export interface ShellLoads {
  sources: ShellSource[];
  /** Every other word that has a value without running the script (candidate file paths). */
  words: string[];
}

interface Word {
  raw: string;
  line: number;
}

const DIR = '\u0000DIR\u0000';
// `$0`, `${0}`, `$BASH_SOURCE`, `${BASH_SOURCE}`, `${BASH_SOURCE[0]}`, optionally in double quotes.
const SELF = String.raw`"?(?:\$0|\$\{0\}|\$BASH_SOURCE\b|\$\{BASH_SOURCE(?:\[0\])?\})"?`;
const DIRNAME = String.raw`\$\(\s*dirname\s+(?:--\s+)?${SELF}\s*\)`;
const IDIOMS = [
  new RegExp(
    String.raw`\$\(\s*cd\s+(?:-P\s+)?(?:--\s+)?"?${DIRNAME}"?\s*(?:>\s*/dev/null\s*(?:2>&1\s*)?|&>\s*/dev/null\s*)?&&\s*pwd(?:\s+-P)?\s*\)`,
    'g',
  ),
  new RegExp(DIRNAME, 'g'),
  /\$\{(?:0|BASH_SOURCE(?:\[0\])?)%\/\*\}/g,
];

/** The loads of the shell script `file` (repo-relative; its folder is what `$(dirname "$0")` names, null for inline code). */
export function shellLoads(source: string, file: string | null): ShellLoads {
  const dir = file === null ? null : file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
  const dirNames = new Set<string>();
  const loads: ShellLoads = { sources: [], words: [] };
  for (const command of shellCommands(source)) {
    const values = command.map((w) => wordValue(w.raw, dirNames, dir));
    const assignments = command.every((w) => /^[A-Za-z_]\w*=/.test(w.raw));
    if (assignments) {
      for (const [i, w] of command.entries()) {
        const name = w.raw.slice(0, w.raw.indexOf('='));
        const value = values[i]?.slice(name.length + 1);
        if (value !== undefined && dir !== null && (value === dir || value === `${dir}/`)) dirNames.add(name);
        else dirNames.delete(name);
      }
      continue;
    }
    const first = values[0];
    if ((first === 'source' || first === '.') && command[1]) {
      loads.sources.push({ target: values[1] ?? null, text: command[1].raw, line: command[1].line });
      continue;
    }
    for (const value of values) if (value) loads.words.push(value);
  }
  return loads;
}

/** A word's value with quotes removed and the script's folder filled in, or null when it expands anything else. */
function wordValue(raw: string, dirNames: ReadonlySet<string>, dir: string | null): string | null {
  let word = raw;
  for (const idiom of IDIOMS) word = word.replace(idiom, DIR);
  for (const name of dirNames) word = word.replace(new RegExp(String.raw`\$(?:\{${name}\}|${name}\b)`, 'g'), DIR);
  let value = '';
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    if (ch === "'") {
      const end = word.indexOf("'", i + 1);
      value += word.slice(i + 1, end < 0 ? word.length : end);
      i = end < 0 ? word.length : end;
    } else if (ch === '"') {
      for (i++; i < word.length && word[i] !== '"'; i++) {
        if (word[i] === '$' || word[i] === '`') return null;
        if (word[i] === '\\' && '"\\$`'.includes(word[i + 1] ?? '')) i++;
        value += word[i];
      }
    } else if (ch === '$' || ch === '`' || ch === '*' || ch === '?' || ch === '[' || ch === '~') return null;
    else if (ch === '\\') value += word[++i] ?? '';
    else value += ch;
  }
  if (!value.includes(DIR)) return value;
  return dir === null ? null : value.replaceAll(DIR, dir);
}

/** The simple commands of a script, each a list of raw words (quotes kept), split the way a shell splits them. */
function shellCommands(source: string): Word[][] {
  const commands: Word[][] = [[]];
  let word = '';
  let line = 1;
  let start = 1;
  const endWord = () => {
    if (word !== '') commands.at(-1)!.push({ raw: word, line: start });
    word = '';
  };
  const endCommand = () => {
    endWord();
    if (commands.at(-1)!.length > 0) commands.push([]);
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (word === '') start = line;
    if (ch === '\\' && source[i + 1] === '\n') {
      line++;
      i++;
    } else if (ch === '\\') word += ch + (source[++i] ?? '');
    else if (ch === "'" || ch === '"' || ch === '`') {
      const end = closing(source, i, ch);
      line += count(source, i, end);
      word += source.slice(i, end + 1);
      i = end;
    } else if (ch === '$' && (source[i + 1] === '(' || source[i + 1] === '{')) {
      const end = closing(source, i + 1, source[i + 1]!);
      line += count(source, i, end);
      word += source.slice(i, end + 1);
      i = end;
    } else if (ch === '#' && word === '') {
      while (i + 1 < source.length && source[i + 1] !== '\n') i++;
    } else if (ch === '\n') {
      endCommand();
      line++;
    } else if (';&|()'.includes(ch)) endCommand();
    else if (' \t\r<>'.includes(ch)) endWord();
    else word += ch;
  }
  endCommand();
  return commands.filter((c) => c.length > 0);
}

/** Where the quote, backtick, `$(…)` or `${…}` opened at `at` closes (nesting and quotes inside counted). */
function closing(source: string, at: number, open: string): number {
  const close = open === '(' ? ')' : open === '{' ? '}' : open;
  if (open === "'") {
    const end = source.indexOf("'", at + 1);
    return end < 0 ? source.length - 1 : end;
  }
  let depth = 0;
  for (let i = at + 1; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') i++;
    else if (open !== '"' && open !== '`' && (ch === '"' || ch === "'")) i = closing(source, i, ch);
    else if (open === '"' && ch === '$' && (source[i + 1] === '(' || source[i + 1] === '{')) i = closing(source, i + 1, source[i + 1]!);
    else if (ch === open && close !== open) depth++;
    else if (ch === close && depth-- === 0) return i;
  }
  return source.length - 1;
}

function count(source: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i <= to && i < source.length; i++) if (source[i] === '\n') n++;
  return n;
}
