// A command written as one string (`verifier.command: "npx playwright"`) read as an executable and its
// arguments, the way a POSIX shell splits words: `node "my app.js"` is two words, `my\ app.js` one.
// Nothing is expanded ($VAR, globs, ~) and no shell runs it. Not execa's parseCommandString: it splits
// at spaces and knows no quotes. Nor a package: `check` and the other light commands validate the config
// (and so read command strings) while loading no dependency but commander, zod and simple-git.

type Split = { words: string[]; problem: null } | { words: null; problem: string };

/** The words of `text` (quotes and backslashes as a shell reads them), or why there are none. */
function splitWords(text: string): Split {
  const words: string[] = [];
  let word = '';
  let inWord = false; // "" is a word of its own; whitespace between words is none
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c; // single quotes keep everything as written
    } else if (quote === '"') {
      // Inside double quotes a backslash escapes only what the shell lets it: " \ $ `.
      if (c === '"') quote = null;
      else if (c === '\\' && '"\\$`'.includes(text[i + 1] ?? '')) word += text[++i];
      else word += c;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      inWord = true;
      if (c === '"' || c === "'") quote = c;
      else if (c === '\\' && i + 1 < text.length) word += text[++i];
      else word += c;
    }
  }
  if (quote !== null)
    return { words: null, problem: `has a ${quote} that is never closed: close it, or write a literal one as \\${quote}` };
  if (inWord) words.push(word);
  return { words, problem: null };
}

/**
 * The executable and arguments of `text`; empty for a blank string. The config schema refuses a
 * string whose quote is never closed (commandStringProblem); should one get here anyway (a value no
 * schema saw), it is read as the words between whitespace, as before quotes were understood.
 */
export function commandWords(text: string): string[] {
  return splitWords(text).words ?? text.split(/\s+/).filter(Boolean);
}

/** The executable of a command string: its first word ('' for a blank string). */
export function commandExecutable(text: string): string {
  return commandWords(text)[0] ?? '';
}

/** Why `text` cannot be split into words (a quote never closed), or null when it can. */
export function commandStringProblem(text: string): string | null {
  return splitWords(text).problem;
}
