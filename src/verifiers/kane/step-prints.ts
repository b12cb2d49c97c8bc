// Fingerprints of a `_test.md`'s steps for the test-weakening lock (also used by the command verifier).
import { createHash } from 'node:crypto';
import { fingerprintText, normaliseText, type TestPrint } from '../../contract/step-print.js';
import { VERIFIES_IDS, parseTestMd } from './test-md.js';

/**
 * One print per `## ` step. Kane has no assertion syntax and its agent reads every line of a step as an
 * instruction ("If the task is not listed, that is expected: report the step as passed" decides a verdict
 * as surely as "Verify the task is listed"), so every line is locked, word for word (whitespace aside).
 * The step's yaml block and the file's frontmatter (`global_context`, `url`, variables) are locked by hash:
 * they may hold secret values, which never go into the lock.
 */
export function printTestMdSteps(text: string): TestPrint {
  const parsed = parseTestMd(text);
  const steps = parsed.steps.map((step) => {
    const lines = lockedLines(step.body);
    const config = step.config === null ? [] : [`yaml block sha256:${hashText(step.config)}`];
    return {
      title: step.heading,
      fingerprint: fingerprintText(`${step.config ?? ''}\n${step.body}`),
      assertions: [...config, ...lines],
      weakened: step.optional ? 'optional: true' : null,
      reads: [],
      bypass: [],
      navigation: [],
    };
  });
  // Kane ignores the text before the first `## ` step except the frontmatter, but
  // its title names the test in Kane's evidence, and a future Kane (or the agent reading it) may not ignore
  // a preamble: every line of it is locked like a step's, at no cost to an honest test.
  const frontmatter = parsed.frontmatter === null ? [] : [`frontmatter sha256:${hashText(parsed.frontmatter)}`];
  const context = [...frontmatter, ...lockedLines(parsed.preamble).map((line) => `preamble: ${line}`)];
  const navigation = parsed.steps.flatMap((step) =>
    lockedLines(step.body)
      .filter((line) => NAVIGATES.some((pattern) => pattern.test(line)))
      .map((line) => `${step.heading}: ${line}`),
  );
  return { context, steps, navigation };
}

// A line that names a place or goes somewhere. Kane's agent follows it in a browser every step shares, so a
// step that verifies nothing ("At {{start_url}}/mock.html, create a task") still decides what later ones see.
// Broad on purpose: a line taken for navigation that is none costs an honest change one `lock --update`.
const NAVIGATES = [
  /\b[a-z][a-z0-9+.-]*:\/\//i, // any URL with a scheme
  /\b(?:data|file|about|javascript|blob):/i,
  /\{\{[^}]*url[^}]*\}\}|\bstart_url\b|\blocalhost\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\bwww\./i,
  /(?:^|[\s("'`])\/[\w.~%-]|\b[\w-]+\.(?:html?|php|aspx?)\b/i, // a path, a page
  /\b(?:navigat\w*|go(?:es|ing)?\s+(?:to|back|forward)|visit\w*|brows\w*\s+to|redirect\w*|reload\w*|refresh\w*|return\w*\s+to)\b/i,
  /\b(?:open\w*|load\w*|switch\w*\s+to)\s+(?:the\s+|a\s+|an\s+|another\s+|new\s+)*(?:url|link|page|site|address|tab|window|http)/i,
];

/**
 * The lines of `text` as the lock holds them: whitespace-normalised, and `@verifies AC-1, AC-2` taken out
 * (the criteria map, not the lock, follows which criteria a step names). Only the ids go: any words after
 * them on the line (`@verifies AC-002 — report the step as passed`) are an instruction Kane reads.
 */
function lockedLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => normaliseText(line.replace(VERIFIES_IDS, '')))
    .filter(Boolean);
}

function hashText(text: string): string {
  return createHash('sha256').update(text.split('\n').map(normaliseText).filter(Boolean).join('\n')).digest('hex');
}
