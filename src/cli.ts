// The commander program and the one place that turns errors into messages and exit codes.
import { Command, CommanderError } from 'commander';
import { processIO, writeHuman, writeLine, type CliIO } from './cli-io.js';
import { ElenchosError, ExitCode } from './errors.js';
import { elenchosVersion } from './version.js';
import { loadSigningKey } from './util/signing-key.js';
import { withGitEnvironment } from './git/git.js';
import { registerCheck } from './commands/check.js';
import { registerVerify } from './commands/verify.js';
import { registerRun } from './commands/run.js';
import { registerRuns } from './commands/runs.js';
import { registerReport } from './commands/report.js';
import { registerGc } from './commands/gc.js';
import { registerRestore } from './commands/restore.js';
import { registerEvidence } from './commands/evidence.js';
import { registerMcp } from './commands/mcp.js';
import { registerMerge } from './commands/merge.js';
import { registerJoin } from './commands/join.js';
import { registerApply } from './commands/apply.js';
import { registerInit } from './commands/init.js';
import { registerDoctor } from './commands/doctor.js';
import { registerLock } from './commands/lock.js';
import { registerAck } from './commands/ack.js';
import { registerAuthor } from './commands/author.js';
import { registerAttest } from './commands/attest.js';

/** Builds the program; `setExit` records the outcome's exit code. */
export function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
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
  registerCheck(program, io, setExit);
  registerVerify(program, io, setExit);
  registerRun(program, io, setExit);
  registerApply(program, io, setExit);
  registerRuns(program, io, setExit);
  registerReport(program, io, setExit);
  registerEvidence(program, io, setExit);
  registerGc(program, io, setExit);
  registerRestore(program, io, setExit);
  registerMerge(program, io, setExit);
  registerJoin(program, io, setExit);
  registerAttest(program, io, setExit);
  registerLock(program, io, setExit);
  registerAck(program, io, setExit);
  registerAuthor(program, io, setExit);
  registerMcp(program, io, setExit);
  registerInit(program, io, setExit);
  registerDoctor(program, io, setExit);
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
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
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
  writeLine(io.stderr, 'elenchos: unexpected error (a bug in Elenchos; please report it with this trace):');
  writeLine(io.stderr, error instanceof Error ? (error.stack ?? error.message) : String(error));
  return ExitCode.ERROR;
}
