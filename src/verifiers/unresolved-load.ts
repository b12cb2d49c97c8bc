// The one line for a load a verifier's code makes whose target is only known at run time.

/** `file:line: `import(name)` names what it loads at run time, …; fix` — what `check` refuses with. */
export function unresolvedLine(file: string, line: number, text: string): string {
  const where = line > 0 ? `${file}:${line}` : file;
  return `${where}: \`${text}\` names what it loads at run time, so it cannot be pinned; write it as a literal path or module name, or list the files it may load in verifier.inputs`;
}
