// The commander program and the one place that turns errors into messages and exit codes.
import { Command, CommanderError } from 'commander';
import { processIO, writeHuman, writeLine, type CliIO } from './cli-io.js';
import { ElenchosError, ExitCode } from './errors.js';
import { elenchosVersion } from './version.js';
import { loadSigningKey } from './util/signing-key.js';
import { withGitEnvironment } from './git/git.js';

type Register = (program: Command, io: CliIO, setExit: (code: number) => void) => void;

/**
 * Each command's module, in the order `--help` lists them, loaded only when wanted: a command's options pull
 * in their own modules (run's pull in the evidence layout, the states, best-of's options), and a light
 * command such as `check` should not pay for every other command's.
 */
const COMMANDS: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['check'], load: async () => (await import('./commands/check.js')).registerCheck },
  { names: ['verify'], load: async () => (await import('./commands/verify.js')).registerVerify },
  { names: ['run'], load: async () => (await import('./commands/run.js')).registerRun },
  { names: ['apply'], load: async () => (await import('./commands/apply.js')).registerApply },
  { names: ['runs', 'show'], load: async () => (await import('./commands/runs.js')).registerRuns },
  { names: ['report'], load: async () => (await import('./commands/report.js')).registerReport },
  { names: ['evidence'], load: async () => (await import('./commands/evidence.js')).registerEvidence },
  { names: ['gc'], load: async () => (await import('./commands/gc.js')).registerGc },
  { names: ['restore'], load: async () => (await import('./commands/restore.js')).registerRestore },
  { names: ['merge'], load: async () => (await import('./commands/merge.js')).registerMerge },
  { names: ['join'], load: async () => (await import('./commands/join.js')).registerJoin },
  { names: ['attest'], load: async () => (await import('./commands/attest.js')).registerAttest },
  { names: ['lock'], load: async () => (await import('./commands/lock.js')).registerLock },
  { names: ['ack'], load: async () => (await import('./commands/ack.js')).registerAck },
  { names: ['author'], load: async () => (await import('./commands/author.js')).registerAuthor },
  { names: ['mcp'], load: async () => (await import('./commands/mcp.js')).registerMcp },
  { names: ['init'], load: async () => (await import('./commands/init.js')).registerInit },
  { names: ['doctor'], load: async () => (await import('./commands/doctor.js')).registerDoctor },
];

/** The program's own options that take a value: skipped when looking for the command's name. */
const VALUE_OPTIONS = ['--signing-key-file'];

/**
 * The one command `args` (the words after `elenchos`) call, or null when that is not plain: no command, a
 * program option other than the key file first (`--help`, `-V`), `help`, or a name no command has. Then
 * every command is registered, so help lists them all and a mistyped name gets its suggestion.
 */
export function calledCommand(args: readonly string[]): (typeof COMMANDS)[number] | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (VALUE_OPTIONS.includes(arg)) {
      i++;
      continue;
    }
    if (VALUE_OPTIONS.some((name) => arg.startsWith(`${name}=`))) continue;
    if (arg.startsWith('-')) return null;
    return COMMANDS.find((command) => command.names.includes(arg)) ?? null;
  }
  return null;
}

/**
 * Builds the program; `setExit` records the outcome's exit code. With `args` (the words after `elenchos`)
 * only the command they call is registered when that is plain (see calledCommand); without, every command.
 */
export async function buildProgram(io: CliIO, setExit: (code: number) => void, args?: readonly string[]): Promise<Command> {
  const program = new Command('elenchos')
    .description("Refuses to take a coding agent's word that a task is done: the verifier decides, with evidence.")
    .version(elenchosVersion(), '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .option(
      '--signing-key-file <file>',
      'sign and check evidence with the key in this 0600 file (or ELENCHOS_SIGNING_KEY_FILE); kept out of the environment, hidden by agent.sandbox',
    )
    // Read once, before any command does anything: a key file rewritten later is not what signs this run.
    .hook('preAction', (thisCommand) => {
      loadSigningKey(io.env, (thisCommand.opts() as { signingKeyFile?: string }).signingKeyFile, io.cwd);
    });
  const called = args ? calledCommand(args) : null;
  const registers = await Promise.all((called ? [called] : COMMANDS).map((command) => command.load()));
  for (const register of registers) register(program, io, setExit);
  const override = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(override);
  };
  program.commands.forEach(override);
  return program;
}

/** Runs the CLI and resolves to the exit code (never calls process.exit). */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  let exitCode: number = ExitCode.VERIFIED;
  try {
    const program = await buildProgram(
      io,
      (code) => {
        exitCode = code;
      },
      argv.slice(2),
    );
    // Every git call of the command starts from the caller's environment, never from this process's own.
    await withGitEnvironment(io.env, () => program.parseAsync([...argv]));
    return exitCode;
  } catch (error) {
    return handleError(error, io);
  }
}

/** Expected errors: one line (plus details) and their exit code; unexpected ones: a stack and exit 2. */
export function handleError(error: unknown, io: CliIO): number {
  if (error instanceof CommanderError) {
    // Help and version are not failures; commander has already printed them and every usage error.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return 0;
    // Every other one is a usage error, bare `elenchos` (or `elenchos evidence`) printing the help included:
    // nothing was done.
    return ExitCode.INPUT;
  }
  if (error instanceof ElenchosError) {
    writeHuman(io.stderr, `elenchos: ${error.message}`);
    for (const line of error.details) writeHuman(io.stderr, `  ${line}`);
    return error.exitCode;
  }
  // A package the bundle leaves outside (scripts/bundle.js), required when first used, is not installed:
  // Elenchos was installed without its dependencies. Named in one line, as the shim names a missing one.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND')) {
    writeLine(io.stderr, `elenchos: ${error.message.split('\n')[0]}; reinstall elenchos with its dependencies (npm install)`);
    return ExitCode.ERROR;
  }
  writeLine(io.stderr, 'elenchos: unexpected error (a bug in Elenchos; please report it with this trace):');
  writeLine(io.stderr, error instanceof Error ? (error.stack ?? error.message) : String(error));
  return ExitCode.ERROR;
}
