// docs/cli.md is the commander program written out (scripts/cli-reference.js): a command, argument, option,
// description or default changed without `npm run cli-reference` fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
// A script, not a module of src/: imported by path so that tsc does not look for its types.
const SCRIPT = path.join(root, 'scripts/cli-reference.js');
const { renderCliReference } = (await import(SCRIPT)) as { renderCliReference: (program: Command) => string };

function program(): Promise<Command> {
  const sink = { write: () => true } as unknown as NodeJS.WritableStream;
  return buildProgram({ stdout: sink, stderr: sink, stdin: process.stdin, env: {}, cwd: root, isTTY: false }, () => {});
}

describe('the CLI reference', () => {
  it('is current: docs/cli.md is what the program says (run `npm run cli-reference`)', async () => {
    expect(readFileSync(path.join(root, 'docs/cli.md'), 'utf8')).toBe(renderCliReference(await program()));
  });

  it('names every command, argument and option, with its description, default and choices', () => {
    const sample = new Command('tool').description('does <things> | more');
    sample.option('--global <file>', 'a program option');
    const sub = sample.command('go').description('goes').argument('[where]', 'the place', 'home');
    sub.option('--fast', 'quickly').option('--times <n>', 'how often', '3').requiredOption('--as <who>', 'who goes');
    sub.addOption(new Option('--mode <m>', 'how').choices(['a', 'b']));
    sub.addOption(new Option('--secret', 'not shown').hideHelp());
    sample.command('nested').description('a <group> | of two').command('leaf').description('a leaf');
    const text = renderCliReference(sample);
    expect(text).toContain('\ndoes &lt;things&gt; | more\n');
    expect(text).toContain('| `--global <file>` | a program option |  |');
    expect(text).toContain('### `tool go [options] [where]`');
    expect(text).toContain('| `[where]` | the place | `"home"` |');
    expect(text).toContain('| `--times <n>` | how often | `"3"` |');
    expect(text).toContain('| `--as <who>` | who goes (required) |  |');
    expect(text).toContain('| `--mode <m>` | how one of `a`, `b` |  |');
    expect(text).not.toContain('--secret');
    expect(text).toContain('### `tool nested leaf`');
    expect(text).toContain('| [`tool nested leaf`](#tool-nested-leaf) | a leaf |');
    expect(text).toContain('| [`tool nested`](#tool-nested) | a &lt;group&gt; \\| of two |');
  });
});
