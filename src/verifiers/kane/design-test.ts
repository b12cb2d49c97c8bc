// Authoring a `_test.md` through kane-cli's assurance commands (docs/author.md#kane-through-kane-clis-assurance-commands): ingest the
// contract as a PRD, extract use cases, design tests, and keep exactly one test whose steps name the
// contract's own criterion ids.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mapCriteria } from '../../contract/criteria-map.js';
import type { Task } from '../../contract/task-schema.js';
import { runProcess } from '../../process/spawn.js';
import { kaneChildEnv } from './kane-invocation.js';
import { parseTestMd } from './test-md.js';

export interface DesignKaneTestOptions {
  task: Task;
  /** A scratch folder: Kane's project store (`.testmuai/`) and our logs go there, not into the checkout. */
  scratch: string;
  command: string;
  baseEnv: NodeJS.ProcessEnv;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

export type DesignedTest = { ok: true; text: string; kaneTest: string; mapping: Record<string, string> } | { ok: false; problem: string };

interface Envelope {
  type?: string;
  status?: string;
  message?: string;
  code?: string;
  [key: string]: unknown;
}

/** The contract as the PRD Kane ingests: title, description, one `- AC-001: …` bullet per criterion. */
export function contractAsPrd(task: Task): string {
  const bullets = task.acceptanceCriteria.map((c) => `- ${c.id}: ${c.description}`);
  return `# ${task.title}\n\n${task.description}\n\n## Acceptance criteria\n\n${bullets.join('\n')}\n`;
}

/** Runs ingest → extract → design tests (every use case) and returns the one test, criteria renamed to the contract's ids. */
export async function designKaneTest(options: DesignKaneTestOptions): Promise<DesignedTest> {
  const prd = path.join(options.scratch, 'contract-prd.md');
  await writeFile(prd, contractAsPrd(options.task));
  const { env, authArgs } = kaneChildEnv(options.baseEnv, options.env);
  let step = 0;
  const kane = async (args: string[]): Promise<{ events: Envelope[]; exitCode: number | null; problem: string | null }> => {
    const events: Envelope[] = [];
    const name = `${String(++step).padStart(2, '0')}-${args.slice(0, 2).join('-')}`;
    const result = await runProcess(options.command, [...args, ...authArgs], {
      cwd: options.scratch,
      env,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      stdoutFile: path.join(options.scratch, `${name}.ndjson`),
      stderrFile: path.join(options.scratch, `${name}.stderr.log`),
      onStdoutLine: (line) => {
        try {
          const event = JSON.parse(line) as unknown;
          if (event && typeof event === 'object' && !Array.isArray(event)) events.push(event as Envelope);
        } catch {
          // Kane may print non-JSON lines: skipped, as in testmd run.
        }
      },
    });
    const done = events.findLast((e) => e.type === 'done');
    const error = events.find((e) => e.type === 'error');
    const said = error?.message ?? result.stderrTail.trim().split('\n').at(-1) ?? '';
    if (result.spawnError)
      return {
        events,
        exitCode: null,
        problem: `${options.command} could not start (${result.spawnError.code ?? result.spawnError.message}); install kane-cli or set verifier.command`,
      };
    if (result.timedOut)
      return {
        events,
        exitCode: null,
        problem: `kane-cli ${args.slice(0, 2).join(' ')} did not finish within ${options.timeoutMs / 1000}s`,
      };
    const listing = args[0] === 'context' && args[1] === 'list';
    if (result.exitCode !== 0 || (!listing && done?.status !== 'complete')) {
      return {
        events,
        exitCode: result.exitCode,
        problem: `kane-cli ${args.slice(0, 2).join(' ')} ended ${done?.status ?? `with exit code ${result.exitCode}`}${said ? `: ${said}` : ''}`,
      };
    }
    return { events, exitCode: result.exitCode, problem: null };
  };

  for (const args of [
    ['context', 'ingest', prd, '--mode', 'agent'],
    ['context', 'extract', '--mode', 'agent'],
  ]) {
    const { problem } = await kane(args);
    if (problem) return { ok: false, problem };
  }
  const listed = await kane(['context', 'list', '--json']);
  if (listed.problem) return { ok: false, problem: listed.problem };
  const usecases = listed.events.filter((e) => e.type === 'usecase');
  if (usecases.length === 0) return { ok: false, problem: 'kane-cli extracted no use case from the contract' };
  const mapping = mapKaneCriteria(usecases, options.task);
  const before = new Set(await listTests(options.scratch));
  for (const usecase of usecases) {
    // The contract is the review: it was written and committed by a person.
    const { problem } = await kane(['design', 'tests', '--use-case', String(usecase.id), '--allow-unreviewed', '--mode', 'agent']);
    if (problem) return { ok: false, problem };
  }
  const saved = (await listTests(options.scratch)).filter((t) => !before.has(t));
  if (saved.length !== 1) {
    return {
      ok: false,
      problem: `kane-cli design tests saved ${saved.length} tests (${saved.join(', ') || 'none'}); authoring needs exactly one, so nothing was written (Kane's output is in ${options.scratch})`,
    };
  }
  const kaneTest = saved[0]!;
  const renamed = renameCriteria(await readFile(path.join(options.scratch, kaneTest), 'utf8'), mapping);
  if (!renamed.ok) return renamed;
  const map = mapCriteria(options.task.acceptanceCriteria, parseTestMd(renamed.text).steps);
  if (map.unmapped.length > 0) {
    return {
      ok: false,
      problem: `Kane's test (${kaneTest}) heads no step with ${map.unmapped.join(', ')}; nothing was written (its output is in ${options.scratch})`,
    };
  }
  return { ok: true, text: renamed.text, kaneTest, mapping };
}

/** Kane's `ac-N` → the contract's id: the AC whose text names the id (`AC-001: …`) or equals its description. */
function mapKaneCriteria(usecases: readonly Envelope[], task: Task): Record<string, string> {
  const mapping: Record<string, string> = {};
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
  for (const usecase of usecases) {
    for (const ac of (usecase.acceptance_criteria as { id?: string; text?: string }[] | undefined) ?? []) {
      if (typeof ac.id !== 'string' || typeof ac.text !== 'string') continue;
      const text = ac.text;
      const named = task.acceptanceCriteria.find((c) => new RegExp(`(^|[^\\w-])${c.id}($|[^\\w-])`, 'i').test(text));
      const same = task.acceptanceCriteria.find((c) => norm(text).endsWith(norm(c.description)));
      const match = named ?? same;
      if (match) mapping[ac.id.toLowerCase()] = match.id;
    }
  }
  return mapping;
}

/** Rewrites every `@verifies ac-N` to the contract's ids; an id Kane invented that maps to nothing is refused. */
function renameCriteria(text: string, mapping: Record<string, string>): { ok: true; text: string } | { ok: false; problem: string } {
  const unknown = new Set<string>();
  const out = text.replace(/@verifies\b([^\n]*)/gi, (_all, list: string) => {
    const ids = list
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((raw) => {
        const id = raw.replace(/[.;:)\]]+$/, '');
        const mapped = mapping[id.toLowerCase()];
        if (!mapped) unknown.add(id);
        return mapped ?? id;
      });
    return `@verifies ${ids.join(', ')}`;
  });
  if (unknown.size > 0)
    return {
      ok: false,
      problem: `Kane's test verifies ${[...unknown].join(', ')}, which match no criterion of the contract; nothing was written`,
    };
  return { ok: true, text: out };
}

async function listTests(scratch: string): Promise<string[]> {
  const dir = path.join(scratch, '.testmuai', 'tests');
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('_test.md'))
    .map((n) => `.testmuai/tests/${n}`)
    .sort();
}
