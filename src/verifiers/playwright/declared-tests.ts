// What a Playwright spec declares, as Playwright itself reports it: one step per test (and project),
// with the criteria its tags and `verifies` annotations name.
import type { DeclaredStep } from '../../contract/criteria-map.js';
import { CRITERION_ID_PATTERN } from '../../contract/task-schema.js';
import type { ReportTest } from './json-report.js';

/**
 * The steps of a listing (or a report): tests numbered 1..n in the report's order (file, line, column,
 * project), each verifying the criteria Playwright attributes to it — tags (its own, its title's `@ID`
 * tokens, its `test.describe` blocks') and `verifies` annotations.
 */
export function declaredSteps(tests: readonly ReportTest[]): DeclaredStep[] {
  const multiProject = new Set(tests.map((t) => t.projectName)).size > 1;
  return tests.map((test, i) => ({ index: i + 1, heading: testHeading(test, multiProject), verifies: testCriteria(test) }));
}

/**
 * How a test is named in steps, findings and the report: its describe blocks and title joined by ` › `
 * (Playwright's own separator), prefixed by `[project]` when the spec runs in more than one project.
 */
export function testHeading(test: ReportTest, multiProject: boolean): string {
  const path = [...test.describePath.filter((t) => t !== ''), test.title].join(' › ');
  return multiProject ? `[${test.projectName}] ${path}` : path;
}

/** Criterion ids Playwright attributes to a test (tags, `verifies` annotations), first spelling kept. */
export function testCriteria(test: ReportTest): string[] {
  const ids = [
    ...test.tags.flatMap((tag) => criteriaInList(tag)),
    ...test.annotations.filter((a) => a.type === 'verifies').flatMap((a) => criteriaInList(a.description ?? '')),
  ];
  const seen = new Set<string>();
  return ids.filter((id) => !seen.has(id.toUpperCase()) && seen.add(id.toUpperCase()));
}

/** Criterion ids in a comma- or space-separated list (`AC-001, AC-002`), whole tokens only. */
export function criteriaInList(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((token) => token.replace(/^@/, ''))
    .filter((token) => CRITERION_ID_PATTERN.test(token));
}

/** Pairs listed steps with reported tests by heading (the n-th test of a heading with the n-th step of it). */
export function pairReportedTests(
  steps: readonly { index: number; heading: string }[],
  tests: readonly ReportTest[],
): Map<number, ReportTest> {
  const multiProject = new Set(tests.map((t) => t.projectName)).size > 1;
  const queues = new Map<string, ReportTest[]>();
  for (const test of tests) {
    const heading = testHeading(test, multiProject);
    queues.set(heading, [...(queues.get(heading) ?? []), test]);
  }
  const pairs = new Map<number, ReportTest>();
  for (const step of steps) {
    const test = queues.get(step.heading)?.shift();
    if (test) pairs.set(step.index, test);
  }
  return pairs;
}
