// `elenchos mcp`: a stdio MCP server (official SDK) over the same core the CLI uses. Read-only unless
// the config's `mcp.allowVerify` lets a client start a verify.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { loadConfig } from '../config/load-config.js';
import { checkTasks } from '../core/check.js';
import { listStoredRuns, showStoredRun } from '../core/stored-runs/inspect-runs.js';
import { selectTasks } from '../core/select-tasks.js';
import { verifyAll } from '../core/verify/verify-all.js';
import { verifyEvidence } from '../core/verify/verify-evidence.js';
import { ElenchosError } from '../errors.js';
import { repoRootOrCwd } from '../git/git.js';
import { elenchosVersion } from '../version.js';
import { signingKeyFor } from '../util/signing-key.js';

export interface McpOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  configFile?: string;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/** A tool answer: JSON text, or an expected error as a tool error (never a crashed server). */
async function answer(work: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await work(), null, 2) }] };
  } catch (error) {
    if (!(error instanceof ElenchosError)) throw error;
    return { content: [{ type: 'text', text: [error.message, ...error.details].join('\n') }], isError: true };
  }
}

/** Builds the server with its tools (connect it to a transport to serve). */
export function createMcpServer(options: McpOptions): McpServer {
  const server = new McpServer({ name: 'elenchos', version: elenchosVersion() });
  const root = () => repoRootOrCwd(options.cwd);
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'list_tasks',
    {
      description: "The task contracts matched by the config's `tasks` globs, each checked: criteria, steps, problems.",
      annotations: readOnly,
    },
    () =>
      answer(async () => {
        const base = await root();
        const { config } = await loadConfig({ root: base, file: options.configFile, env: options.env });
        const files = await selectTasks(config.tasks, base);
        return checkTasks({ cwd: base, files, configFile: options.configFile, env: options.env });
      }),
  );
  server.registerTool(
    'check_task',
    {
      description: 'Validate task contracts, the config, their test files and the criteria ↔ step mapping (elenchos check).',
      inputSchema: { tasks: z.array(z.string()).min(1).describe('Task files, relative to the repository') },
      annotations: readOnly,
    },
    ({ tasks }) => answer(async () => checkTasks({ cwd: await root(), files: tasks, configFile: options.configFile, env: options.env })),
  );
  server.registerTool('list_runs', { description: 'Stored runs, newest first (run.json records).', annotations: readOnly }, () =>
    answer(async () => listStoredRuns(options.cwd)),
  );
  server.registerTool(
    'show_run',
    {
      description:
        "One run's record and every attempt's criteria, findings and verdicts; a best-of run's `candidates` (each with its record and attempts) and `winner`.",
      inputSchema: { runId: z.string().describe('A run id, a unique prefix, or "latest"') },
      annotations: readOnly,
    },
    ({ runId }) =>
      answer(async () => {
        const shown = await showStoredRun(options.cwd, runId);
        return { dir: shown.dir, record: shown.record, attempts: shown.attempts, candidates: shown.candidates };
      }),
  );
  server.registerTool(
    'verify_evidence',
    {
      description: "Check a run's files against its manifest (tampering detection).",
      inputSchema: { runId: z.string() },
      annotations: readOnly,
    },
    ({ runId }) =>
      answer(async () => {
        const { ok, problems } = await verifyEvidence({
          cwd: options.cwd,
          runId,
          signingKey: signingKeyFor(options.env),
        });
        return { ok, problems };
      }),
  );
  server.registerTool(
    'verify_task',
    {
      description: 'Run `elenchos verify` on task contracts against HEAD (no agent). Only when the config sets mcp.allowVerify.',
      inputSchema: { tasks: z.array(z.string()).min(1) },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ tasks }) =>
      answer(async () => {
        const { config } = await loadConfig({ root: await root(), file: options.configFile, env: options.env });
        if (!config.mcp.allowVerify)
          throw new ElenchosError(
            'verify_task is disabled: set "mcp": { "allowVerify": true } in elenchos.config.json to let MCP clients start a verify',
          );
        const result = await verifyAll({
          cwd: options.cwd,
          tasks,
          configFile: options.configFile,
          env: options.env,
          workers: 1,
          signal: new AbortController().signal,
          reporterFor: () => ({ onEvent: () => undefined }),
        });
        return { exitCode: result.exitCode, runs: result.tasks.map((t) => t.record ?? { file: t.file, refused: t.refused }) };
      }),
  );
  return server;
}
