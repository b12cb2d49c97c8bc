// elenchos.config.json: the one zod schema that schemas/config.schema.json is generated from.
import * as z from 'zod';
import { VERIFIER_TYPES, VariableSchema } from '../contract/task-schema.js';
import { commandStringProblem } from '../process/command-string.js';
import { CREDENTIAL_ENV } from '../util/credentials.js';
import { GUARD_NAMES } from '../states.js';
import { fillPort } from './port-placeholder.js';

export const AGENT_TYPES = ['claude', 'codex', 'command', 'gemini', 'opencode'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];
/** How an agent is confined: bubblewrap where it holds (`auto`), always (`bwrap`), or not (`none`): src/agents/sandbox-mode.ts. */
export const SANDBOX_KINDS = ['auto', 'bwrap', 'none'] as const;

const seconds = (fallback: number) => z.number().int().positive().max(86_400).default(fallback);
/** A string that reaches a child process (argument, environment, path): a NUL byte cannot, and would crash the spawn. */
const processString = () => z.string().refine((v) => !v.includes('\0'), 'must not contain a NUL byte (\\u0000)');
/** A command line split into words as a shell would (process/command-string.ts): its quotes must close. */
const commandString = () =>
  processString()
    .min(1)
    .superRefine((v, ctx) => {
      const problem = commandStringProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
const envName = z.string().regex(/^[^=\0]+$/, 'an environment variable name must be non-empty, without "=" or a NUL byte');
const envRecord = z.record(envName, processString()).default({});
const passEnvList = z
  .array(envName.refine((name) => !CREDENTIAL_ENV.includes(name), "the verifier's credentials and the signing key are never passed on"))
  .default([]);
/** http(s) only: the URL is handed to a browser, where `javascript:` or `file:` would be an attack, not an app. */
const appUrl = z
  .string()
  .min(1)
  .refine((v) => !v.includes('\0'), 'must not contain a NUL byte (\\u0000)')
  .refine((v) => URL.canParse(fillPort(v, 1)) && /^https?:$/.test(new URL(fillPort(v, 1)).protocol), {
    message: 'must be an http:// or https:// URL, e.g. "http://127.0.0.1:{port}/"',
  });
/** A path inside the repository: not absolute, no `..`, no NUL byte. */
const repoPath = processString()
  .min(1, 'must not be empty')
  .refine((p) => !/^([/\\]|[A-Za-z]:[\\/])/.test(p), 'must be relative to the repository root, not absolute')
  .refine((p) => !p.replaceAll('\\', '/').split('/').includes('..'), 'must not contain ".." (it must stay inside the repository)');

/** A repository-relative glob (picomatch syntax, as fast-glob's): not absolute, no `..`, not `.git` or `.elenchos`. */
const appWriteGlob = repoPath
  .refine((p) => !/^!/.test(p), 'a negated glob cannot be declared: list only what the app writes')
  // git's glob pathspecs (the stored change of a large attempt) know neither: one glob per path instead.
  .refine(
    (p) => !/[{}]|[@!+*?]\(/.test(p),
    'braces and extglobs cannot be declared: write one glob per path (e.g. "log/a.log", "log/b.log")',
  )
  .refine(
    (p) => !/^(\.git|\.elenchos)(\/|$)/.test(p.replaceAll('\\', '/')) && !/^(\*\*|\*)(\/\*\*)?$/.test(p),
    'must name what the app writes, not the whole repository, `.git` or `.elenchos`',
  );

const guardList = z.array(z.enum(GUARD_NAMES)).default([]);

export const GuardsConfigSchema = z
  .strictObject({
    require: guardList.describe(
      'Guards every verdict must stand on besides those that always run, e.g. ["sandbox"] (also verify --require).',
    ),
    allow: guardList.describe(
      'Guards that always run but may be unable to look (e.g. ["processScan"] where no process table sees other processes) without stopping a VERIFIED; the record still says they did not stand.',
    ),
  })
  .superRefine((guards, ctx) => {
    for (const name of guards.allow)
      if (guards.require.includes(name))
        ctx.addIssue({ code: 'custom', path: ['allow'], message: `${name} is both required and allowed to fail; keep it in one list` });
  });

/** A repository-relative glob of files a verifier reads (picomatch syntax): not absolute, no `..`, never negated. */
const inputGlob = repoPath.refine((p) => !/^!/.test(p), 'a negated glob cannot be listed: list only what the verifier reads');

export const AgentConfigSchema = z
  .strictObject({
    type: z.enum(AGENT_TYPES).default('command').describe('Which agent adapter dispatches the work.'),
    command: processString()
      .min(1)
      .optional()
      .describe('Executable (defaults: `claude`, `codex`, `gemini`, `opencode`; required for `command`).'),
    model: processString()
      .min(1)
      .optional()
      .describe(
        "The model, passed as the agent's own flag (claude, codex, gemini and opencode: `--model <model>`); refused for `command`, whose flags Elenchos cannot know (put it in `args`).",
      ),
    args: z.array(processString()).default([]).describe('Extra arguments.'),
    timeoutSeconds: seconds(1800).describe('Wall-clock limit of one agent dispatch.'),
    env: envRecord.describe('Extra environment variables for the agent (verifier credentials are never passed).'),
    sandbox: z
      .enum(SANDBOX_KINDS)
      .default('auto')
      .describe(
        "`bwrap` runs the agent, the app and setup.command in bubblewrap (Linux), with no capabilities, whoever starts Elenchos: only their worktree writable, the checkout, other processes and the verifier's credentials out of sight; refused where it does not hold. `auto` (the default): bubblewrap where it is installed and holds, else none with a warning. `none`: they run as you.",
      ),
    passEnv: passEnvList.describe(
      "Variables of the caller's environment given to the agent although their names look like credentials (e.g. ANTHROPIC_API_KEY); no other credential passes.",
    ),
  })
  .superRefine(modelProblems);

/** The flags that name the model in `args`, per adapter (Claude Code has no short one). */
const MODEL_FLAGS: Partial<Record<AgentType, readonly string[]>> = {
  claude: ['--model'],
  codex: ['--model', '-m'],
  gemini: ['--model', '-m'],
  opencode: ['--model', '-m'],
};

/** `model` where no flag can carry it (a command agent), or twice (also in `args`): one line naming the fix. */
function modelProblems(agent: { type: AgentType; model?: string; args: string[] }, ctx: z.RefinementCtx): void {
  if (agent.model === undefined) return;
  const flags = MODEL_FLAGS[agent.type];
  if (!flags) {
    ctx.addIssue({
      code: 'custom',
      path: ['model'],
      message: `the ${agent.type} agent takes no model: Elenchos cannot know its flag; put it in args (e.g. ["--model", "${agent.model}"]) or remove model`,
    });
    return;
  }
  const named = agent.args.find((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)));
  if (named !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['model'],
      message: `args already name the model (${named}); keep model or that flag, not both`,
    });
}

/** A named agent's name (`agents`, `run --agents`): it names folders and env values, so a plain slug. */
export { AGENT_NAME_PATTERN } from './agent-name.js';
import { AGENT_NAME_PATTERN } from './agent-name.js';
/** `default` names the config's `agent` in `run --agents`. */
export const DEFAULT_AGENT_NAME = 'default';

export const AgentsConfigSchema = z
  .record(
    z
      .string()
      .regex(AGENT_NAME_PATTERN, 'an agent name is 1 to 32 of a-z, 0-9, "-" and "_", starting with a letter or digit (e.g. "claude-opus")')
      .refine((name) => name !== DEFAULT_AGENT_NAME, '"default" names the config\'s `agent`; pick another name'),
    AgentConfigSchema,
  )
  .default({});

export const AppConfigSchema = z.strictObject({
  command: processString().min(1).optional().describe("Starts the app in the worktree; `{port}` is replaced by the run's port."),
  url: appUrl.default('http://127.0.0.1:{port}/').describe('Where the app answers once ready (http or https).'),
  port: z.number().int().min(0).max(65_535).default(0).describe('0 picks a free loopback port per run.'),
  readyTimeoutSeconds: seconds(120).describe('How long the app may take to answer.'),
  env: envRecord.describe('Extra environment variables for the app.'),
  passEnv: passEnvList.describe(
    "Variables of the caller's environment given to the app although their names look like credentials (e.g. DATABASE_PASSWORD); no other credential passes.",
  ),
  writes: z
    .array(appWriteGlob)
    .default([])
    .describe(
      'Repository-relative globs the app writes by design (e.g. `db.json`, `log/**`): reset to the base commit before the app starts, left out of the verifier window and of the stored change, put back afterwards.',
    ),
});

export const SetupConfigSchema = z.strictObject({
  command: processString().min(1).optional().describe('Runs in each fresh worktree before the agent (e.g. `npm ci`).'),
  copy: z.array(repoPath).default([]).describe('Git-ignored files copied from the main checkout (e.g. `.env`).'),
  timeoutSeconds: seconds(600).describe('Wall-clock limit of the setup command.'),
  cache: z
    .strictObject({
      key: z
        .array(repoPath)
        .min(1)
        .describe('Files whose contents key the cache (e.g. package-lock.json); with the setup command and the platform.'),
      paths: z.array(repoPath).min(1).describe('Git-ignored paths setup.command produces, saved and restored (e.g. node_modules).'),
    })
    .optional()
    .describe('Reuse what setup.command produced while the key files are unchanged (see docs/performance.md).'),
});

export const VerifierConfigSchema = z.strictObject({
  type: z
    .enum(VERIFIER_TYPES)
    .optional()
    .describe(
      "Which verifier decides pass or fail; unset, each task's test file says (`*_test.md` Kane, `*.spec.ts` / `*.test.ts` / `*.spec.js` Playwright).",
    ),
  command: commandString().optional().describe('Executable (defaults: `kane-cli`, `npx playwright`).'),
  args: z.array(processString()).default([]).describe('Extra arguments.'),
  timeoutSeconds: seconds(900).describe("Wall-clock limit of one verification (Kane's own --timeout is not trusted)."),
  variables: z.record(z.string(), VariableSchema).default({}).describe('Variables passed to every verification.'),
  env: envRecord.describe('Extra environment variables for the verifier.'),
  inputs: z
    .array(inputGlob)
    .default([])
    .describe(
      "Repository-relative globs of files the verifier reads that Elenchos cannot follow by itself (a module loaded by a name built at run time, a data file opened by the verifier's code): locked with the contract and the test lock like the test.",
    ),
  browserPath: processString().min(1).optional().describe('Chromium executable for the Playwright verifier (e.g. /usr/bin/chromium).'),
  sweep: z
    .strictObject({
      command: processString()
        .min(1)
        .optional()
        .describe('kane-cli executable (default: verifier.command when the verifier is Kane, else `kane-cli`).'),
      maxSteps: z.number().int().positive().max(200).default(30).describe('--max-steps of the exploratory run.'),
      timeoutSeconds: seconds(300).describe('Wall-clock limit of the exploratory run.'),
    })
    .optional()
    .describe('After a PASS, one bounded exploratory Kane run looking for bugs (off unless set, e.g. `"sweep": {}`).'),
});

export const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  agent: AgentConfigSchema.prefault({}),
  agents: AgentsConfigSchema.describe(
    'Named agents beside `agent` (the default), for `elenchos run --agents a,b` and `--best-of N` (see docs/best-of.md).',
  ),
  app: AppConfigSchema.prefault({}),
  setup: SetupConfigSchema.prefault({}),
  verifier: VerifierConfigSchema.prefault({}),
  maxRepairAttempts: z.number().int().min(0).max(20).default(2).describe('Repairs after the first attempt.'),
  maxVerifierRetries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(1)
    .describe('Re-verifications after a verifier error, not charged to repairs.'),
  tasks: z.array(z.string().min(1)).default(['tasks/**/*.json']).describe('Globs of task contracts for `elenchos verify`.'),
  retainWorkspace: z.boolean().default(false).describe("Keep each run's worktree."),
  worktreePool: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Reuse warm worktrees between runs and verify tasks (--fresh bypasses it).'),
      size: z.number().int().min(0).max(32).default(4).describe('Most idle worktrees kept per repository.'),
    })
    .prefault({})
    .describe('A bounded pool of detached worktrees under .elenchos/ (see docs/performance.md).'),
  setupCache: z
    .strictObject({
      maxAgeDays: z
        .number()
        .min(0)
        .default(14)
        .describe('`elenchos gc` removes setup cache entries unused this long, except the current key.'),
      maxBytes: z
        .number()
        .int()
        .min(0)
        .default(5 * 1024 ** 3)
        .describe('`elenchos gc` then removes the least recently used entries while .elenchos/cache is larger, except the current key.'),
    })
    .prefault({})
    .describe('Limits `elenchos gc` keeps the setup cache (.elenchos/cache) within (see docs/performance.md).'),
  redact: z.array(z.string().min(1)).default([]).describe('Names of environment variables whose values never reach evidence.'),
  budget: z
    .strictObject({
      maxCostUsd: z
        .number()
        .positive()
        .optional()
        .describe('End the run ERROR BUDGET_EXCEEDED before a step would pass this many US dollars of agent cost.'),
      maxKaneCredits: z.number().positive().optional().describe('… before a verification would pass this many Kane credits.'),
      maxMinutes: z.number().positive().optional().describe('… before a step would pass this many minutes of the run.'),
    })
    .prefault({})
    .describe('Caps on what one run may spend (also --max-cost-usd, --max-kane-credits, --max-minutes).'),
  needsHuman: z
    .strictObject({
      afterFailedRuns: z
        .number()
        .int()
        .min(0)
        .max(100)
        .default(3)
        .describe('Agent runs in a row ending FAILED or ERROR that flag a task NEEDS_HUMAN (0: never by count; tampering always flags).'),
    })
    .prefault({})
    .describe('When `elenchos run` refuses a task until `elenchos ack`.'),
  mcp: z
    .strictObject({
      allowVerify: z.boolean().default(false).describe('Let MCP clients start `elenchos verify` of a task (read-only otherwise).'),
    })
    .prefault({})
    .describe('The `elenchos mcp` server.'),
  guards: GuardsConfigSchema.prefault({}).describe(
    'Which guards a verdict must stand on (docs/verification.md#what-stood-behind-a-verdict): a run whose required guard did not stand ends ERROR GUARD_MISSING, never VERIFIED.',
  ),
});

export type Config = z.infer<typeof ConfigSchema>;
