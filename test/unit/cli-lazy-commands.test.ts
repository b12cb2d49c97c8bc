// The CLI registers only the command it is called with (src/cli.ts): every command must still be reachable
// by its name, and what a user sees (help, a command's help, the suggestion for a mistyped name) must be
// what the program with every command registered says.
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, calledCommand, main } from '../../src/cli.js';
import type { CliIO } from '../../src/cli-io.js';
import { runMain } from '../helpers/cli.js';

const quiet = (): CliIO => ({
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  stdin: new PassThrough(),
  env: {},
  cwd: '/',
  isTTY: false,
});
const everyCommand = await buildProgram(quiet(), () => undefined);
const names = everyCommand.commands.map((command) => command.name());
const named = (program: Command, name: string) => program.commands.find((command) => command.name() === name);

describe('one command registered, as called', () => {
  it('knows every command the program has, and registers only the module of the one named', async () => {
    expect(names).toEqual(expect.arrayContaining(['check', 'verify', 'run', 'runs', 'show', 'attest', 'evidence', 'mcp', 'doctor']));
    for (const name of names) {
      expect(calledCommand([name]), name).not.toBeNull();
      const program = await buildProgram(quiet(), () => undefined, [name, '--json']);
      // runs and show share a module: naming one registers both, in the order --help lists them.
      const expected = ['runs', 'show'].includes(name) ? ['runs', 'show'] : [name];
      expect(
        program.commands.map((command) => command.name()),
        name,
      ).toEqual(expected);
      // The command as registered alone is the command as registered with every other: same help, same options.
      expect(named(program, name)!.helpInformation(), name).toBe(named(everyCommand, name)!.helpInformation());
    }
  });

  it('finds the command after the program option that takes a value, in both spellings', () => {
    expect(calledCommand(['--signing-key-file', 'check', 'verify'])?.names).toEqual(['verify']);
    expect(calledCommand(['--signing-key-file=k', 'check'])?.names).toEqual(['check']);
  });

  it('registers every command when the call is not one plain command', () => {
    // No command, help asked for first, `help <command>`, a mistyped or unknown name, a value option's name as
    // the command word: help and suggestions need every command's name.
    for (const args of [[], ['--help'], ['-h'], ['-V', 'check'], ['help', 'check'], ['chek'], ['nope'], ['--signing-key-file']])
      expect(calledCommand(args), args.join(' ')).toBeNull();
  });

  it('prints the help of every command as the full program does, and lists every command in the top help', async () => {
    const top = await runMain(['--help'], '/');
    expect(top.code).toBe(0);
    expect(top.stdout).toBe(everyCommand.helpInformation());
    for (const name of names) expect(top.stdout, name).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const check = await runMain(['check', '--help'], '/');
    expect(check.stdout).toBe(named(everyCommand, 'check')!.helpInformation());
    const keygen = await runMain(['attest', 'keygen', '--help'], '/');
    expect(keygen.stdout).toBe(named(named(everyCommand, 'attest')!, 'keygen')!.helpInformation());
  });

  it('still suggests the command a mistyped name meant, and refuses an unknown one as a usage error', async () => {
    const typo = await runMain(['chek'], '/');
    expect(typo.code).toBe(3);
    expect(typo.stderr).toContain("unknown command 'chek'");
    expect(typo.stderr).toContain('(Did you mean check?)');
    const unknownOption = await runMain(['check', '--bogus'], '/');
    expect(unknownOption.code).toBe(3);
    expect(unknownOption.stderr).toContain("unknown option '--bogus'");
  });

  it('main with a command name runs that command (the exit code is its own)', async () => {
    const stdout = new PassThrough();
    let out = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await main(['node', 'elenchos', 'check', '--help'], { ...quiet(), stdout });
    await new Promise((resolve) => setImmediate(resolve));
    expect(code).toBe(0);
    expect(out).toContain('Usage: elenchos check');
  });
});
