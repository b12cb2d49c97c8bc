// Reads a Kane `_test.md` the way Kane does: frontmatter, then one step per `## ` line.

export interface TestMdStep {
  /** 1-based, as Kane's `step_index`. */
  index: number;
  /** The H2 text, as Kane reports it in `test_md_step_start.heading`. */
  heading: string;
  /** 1-based line of the `## ` heading in the file. */
  line: number;
  body: string;
  /** Raw text of a fenced yaml block right under the heading (step config), if any. */
  config: string | null;
  optional: boolean;
  /** Target of an `@import` body, if the step is an import. */
  importPath: string | null;
  /** Criterion ids named by `@verifies` in the heading or body, as written, in order, without duplicates. */
  verifies: string[];
}

export interface TestMd {
  frontmatter: string | null;
  title: string | null;
  /** Every line between the frontmatter and the first `## ` (the title included). */
  preamble: string;
  steps: TestMdStep[];
}

const VERIFIES = /(?<![\w.@])@verifies\b([^\n]*)/gi;
const CRITERION_TOKEN = /^[A-Za-z][A-Za-z0-9]*-\d+$/;
/** `@verifies` with the ids after it (as `readVerifies` reads them) and nothing more of the line. */
export const VERIFIES_IDS = /(?<![\w.@])@verifies\b(?:[\s,]*[A-Za-z][A-Za-z0-9]*-\d+[.;:)\]]*(?![\w-]))*/gi;

/** Splits a `_test.md` into steps (text before the first `## ` is never a step). */
export function parseTestMd(text: string): TestMd {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let cursor = 0;
  let frontmatter: string | null = null;
  if (lines[0]?.trim() === '---') {
    const close = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
    if (close > 0) {
      frontmatter = lines.slice(1, close).join('\n');
      cursor = close + 1;
    }
  }
  let title: string | null = null;
  const preamble: string[] = [];
  const steps: TestMdStep[] = [];
  let current: { heading: string; line: number; body: string[] } | null = null;
  const flush = () => {
    if (current) steps.push(buildStep(steps.length + 1, current.heading, current.line, current.body));
  };
  for (let i = cursor; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('## ')) {
      flush();
      current = { heading: line.slice(3).trim(), line: i + 1, body: [] };
    } else if (current) {
      current.body.push(line);
    } else {
      preamble.push(line);
      if (title === null && line.startsWith('# ')) title = line.slice(2).trim();
    }
  }
  flush();
  return { frontmatter, title, preamble: preamble.join('\n'), steps };
}

function buildStep(index: number, heading: string, line: number, bodyLines: string[]): TestMdStep {
  let start = 0;
  while (start < bodyLines.length && bodyLines[start]?.trim() === '') start++;
  let config: string | null = null;
  if (/^```ya?ml\s*$/.test(bodyLines[start]?.trim() ?? '')) {
    const end = bodyLines.findIndex((l, i) => i > start && l.trim() === '```');
    if (end > start) {
      config = bodyLines.slice(start + 1, end).join('\n');
      start = end + 1;
    }
  }
  const body = bodyLines.slice(start).join('\n').trim();
  const importMatch = /^@import\s+(\S+)\s*$/.exec(body);
  return {
    index,
    heading,
    line,
    body,
    config,
    optional: config !== null && /^\s*optional\s*:\s*true\s*$/m.test(config),
    importPath: importMatch?.[1] ?? null,
    verifies: readVerifies(`${heading}\n${body}`),
  };
}

/** Criterion ids after `@verifies` (comma or space separated, whole tokens), case preserved. */
export function readVerifies(text: string): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(VERIFIES)) {
    const rest = (match[1] ?? '').replace(/-->.*$/, '');
    for (const raw of rest.split(/[\s,]+/)) {
      const token = raw.replace(/[.;:)\]]+$/, '');
      if (token === '') continue;
      if (!CRITERION_TOKEN.test(token)) break;
      const key = token.toUpperCase();
      if (!seen.has(key)) {
        seen.add(key);
        ids.push(token);
      }
    }
  }
  return ids;
}
