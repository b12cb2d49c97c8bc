// The only place that runs git: a small promise wrapper with readable failures.
import { execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { ElenchosError } from '../errors.js';

export class GitError extends ElenchosError {
  override readonly code = 'ELENCHOS_GIT';
}

export interface GitOptions {
  cwd: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
}

// A fixed locale keeps messages parseable; no prompt can ever block a run waiting for a password.
function gitEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return { ...(env ?? process.env), GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

function gitFailure(args: readonly string[], cwd: string, stderr: string, error: Error): GitError {
  const detail = stderr.trim().split('\n').slice(-3).join(' ') || error.message;
  return new GitError(`git ${args.slice(0, 3).join(' ')} failed in ${cwd}: ${detail}`, { cause: error });
}

/** Runs `git args` in `cwd` and returns stdout; throws GitError with git's stderr on failure. */
export function git(args: readonly string[], options: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnv(options.env), maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) reject(gitFailure(args, options.cwd, String(stderr), error));
        else resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Like `git` but returns stdout as bytes: `-z` output holds paths that are not valid UTF-8. */
export function gitBytes(args: readonly string[], options: GitOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnv(options.env), maxBuffer: 512 * 1024 * 1024, encoding: 'buffer' },
      (error, stdout, stderr) => {
        if (error) reject(gitFailure(args, options.cwd, stderr.toString('utf8'), error));
        else resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Streams `git args` stdout into `file` (a patch may be large); resolves with the bytes written. */
export function gitToFile(args: readonly string[], options: GitOptions & { file: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(options.file);
    const child = spawn('git', args, { cwd: options.cwd, env: gitEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let failed: Error | undefined;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192);
    });
    child.stdout.pipe(out);
    // Wait for both: git's exit code and the file being flushed to disk.
    let exit: number | null | undefined;
    let flushed = false;
    child.on('error', (error) => {
      failed = error;
      exit ??= null;
      settle();
    });
    let settled = false;
    const settle = () => {
      if (exit === undefined || !flushed) return;
      if (settled) return;
      settled = true;
      if (failed) reject(gitFailure(args, options.cwd, stderr, failed));
      else if (exit !== 0) reject(gitFailure(args, options.cwd, stderr, new Error(`exit code ${exit}`)));
      else resolve(out.bytesWritten);
    };
    out.on('error', (error) => {
      failed ??= error;
      flushed = true;
      child.kill();
      settle();
    });
    out.on('close', () => {
      flushed = true;
      settle();
    });
    child.on('close', (code) => {
      exit = code;
      settle();
    });
  });
}

/** The repository's top level containing `cwd`, or null outside a repository. */
export async function findRepoRoot(cwd: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--show-toplevel'], { cwd })).trim();
  } catch {
    return null;
  }
}

/** The repository's top level containing `cwd`, or `cwd` itself outside a repository (where `check` and
 * the evidence commands still work). */
export async function repoRootOrCwd(cwd: string): Promise<string> {
  return (await findRepoRoot(cwd)) ?? cwd;
}

/** Splits NUL-terminated `-z` output into strings, dropping the trailing empty field. */
export function splitNul(output: Buffer | string): string[] {
  const text = typeof output === 'string' ? output : output.toString('utf8');
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
