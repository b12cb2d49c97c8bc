// What the test-weakening lock remembers of one step or test: its assertions and a fingerprint (which
// criteria it verifies comes from the verifier's own mapping, not from here).
import { createHash } from 'node:crypto';

/** One step (Kane, command) or test (Playwright) as the lock sees it. */
export interface StepPrint {
  /** The heading or test title, as the verifier reports it. */
  title: string;
  /** sha256 of the step's text without its title (config, body, modifiers), whitespace-normalised: a rename keeps it. */
  fingerprint: string;
  /** The step's assertion texts, whitespace-normalised, in order: these are what the lock protects. */
  assertions: string[];
  /** Why the step cannot prove anything any more (`optional`, `test.fail()`, `test.skip()`…), or null. */
  weakened: string | null;
  /**
   * What the assertions depend on besides themselves (Playwright): the statements declaring or assigning a
   * value they read (`reads: …`), the test's fixtures (`fixtures: …`), the statements of the describe
   * blocks around it (`scope: …`). Every one must stay; a new one that writes a name they read is a weakening.
   */
  reads: string[];
  /** Calls in the test that can put something other than the app in front of it (`page.setContent(…)`…). */
  bypass: string[];
  /**
   * Where the test looks (Playwright): each statement that navigates (`page.goto('/')`, `goBack()`, a new
   * page or context) and what its target reads, in order. A `goto('/mock.html')` stays on the app, but not
   * on the page the criterion is about: any change is a weakening.
   */
  navigation: string[];
}

/** Every step of a test file, and what they all share (a spec's imports and top-level code, a `_test.md`'s frontmatter). */
export interface TestPrint {
  context: string[];
  steps: StepPrint[];
  /**
   * Where the whole test looks (Kane, command): every line of every step, verifying or not, that names a
   * place or navigates, with its step's heading. Kane's steps share one browser: a step that verifies
   * nothing can still take a later one to another page.
   */
  navigation?: string[];
}

/** Collapses runs of whitespace so that re-indenting a test is not a change. */
export function normaliseText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** sha256 hex of the normalised text. */
export function fingerprintText(text: string): string {
  return createHash('sha256').update(normaliseText(text)).digest('hex');
}
