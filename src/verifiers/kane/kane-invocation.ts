// The exact kane-cli command line and child environment, built explicitly (nothing leaks by accident).
import type { Variable } from '../../contract/task-schema.js';
import { childEnv } from '../../process/child-env.js';
import type { VerifyContext } from '../types.js';

export interface KaneInvocation {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** `args` with the access key and secret variable values replaced, for the record. */
  redactedArgs: string[];
}

const REDACTED = '***';

/** Kane's child environment (what it needs, nothing else) and the basic-auth flags built from LT_USERNAME/LT_ACCESS_KEY. */
export function kaneChildEnv(
  baseEnv: NodeJS.ProcessEnv,
  extra: Record<string, string>,
): { env: NodeJS.ProcessEnv; authArgs: string[]; accessKey: string | undefined } {
  // What Kane needs to run anywhere, and its own KANE_CLI_* settings: the `kane` rule of process/child-env.ts.
  // Kane never reads LT_* itself (docs/kane.md#running-kane): they become flags, and the rule keeps them out of its environment.
  const env = childEnv('kane', { baseEnv, set: [extra] });
  const lookup = { ...baseEnv, ...extra };
  const username = lookup.LT_USERNAME;
  const accessKey = lookup.LT_ACCESS_KEY;
  return { env, authArgs: username && accessKey ? ['--username', username, '--access-key', accessKey] : [], accessKey };
}

/** Builds `kane-cli testmd run <abs test> --agent --headless --variables … [--username … --access-key …] [extra args]`. */
export function buildKaneInvocation(ctx: VerifyContext): KaneInvocation {
  const { env, authArgs, accessKey } = kaneChildEnv(ctx.baseEnv, ctx.env);

  const variables = kaneVariables(ctx.variables, ctx.url);
  const secrets = Object.values(variables)
    .filter((v) => v.secret)
    .map((v) => v.value);
  const args = ['testmd', 'run', ctx.testFile, '--agent', '--headless', '--variables', JSON.stringify(variables)];
  args.push(...authArgs);
  args.push(...ctx.args);
  return { command: ctx.command ?? 'kane-cli', args, env, redactedArgs: redactArgs(args, [...secrets, ...(accessKey ? [accessKey] : [])]) };
}

/** Kane's `{"name":{"value":"…","secret":bool}}`; `start_url` is always the app's URL for this run. */
export function kaneVariables(variables: Record<string, Variable>, url: string): Record<string, { value: string; secret: boolean }> {
  const out: Record<string, { value: string; secret: boolean }> = {};
  for (const [name, variable] of Object.entries(variables)) {
    out[name] =
      typeof variable === 'string' ? { value: variable, secret: false } : { value: variable.value, secret: variable.secret ?? false };
  }
  out.start_url = { value: url, secret: false };
  return out;
}

/** Replaces the value after `--access-key` and every secret inside other arguments. */
export function redactArgs(args: readonly string[], secrets: readonly string[]): string[] {
  const hidden = secrets.filter((s) => s.length > 0);
  return args.map((arg, i) => {
    if (args[i - 1] === '--access-key') return REDACTED;
    if (arg.startsWith('--access-key=')) return `--access-key=${REDACTED}`;
    return hidden.reduce((text, secret) => text.split(secret).join(REDACTED), arg);
  });
}
