// Every way a task's test, as it stands now, weakens what its committed lock holds.
import type { LockedStep, TestLock } from '../../contract/test-lock-schema.js';

export interface LockFinding {
  criterion: string;
  step: string;
  message: string;
  /** The file whose change it is, when not the test file (a config file, an input the verifier reads). */
  file?: string;
}

export interface LockComparison {
  /** A criterion that did not change lost or weakened what verifies it: `verify` and `check` fail. */
  problems: LockFinding[];
  /** Changes a reviewer may want to see but that weaken nothing (new criteria, reworded steps). */
  notes: string[];
}

// The label a path step carries when the assertion behind it can no longer fail the test (assertion-path.ts).
const NEVER_RUNS = 'never runs: ';

/** Every way `current` weakens `locked` under a criterion whose description did not change, and in what all share. */
export function compareTestLock(locked: TestLock, current: TestLock): LockComparison {
  const problems: LockFinding[] = [];
  const notes: string[] = [];
  const allNow = current.criteria.flatMap((c) => c.steps);
  const held: string[] = [];
  for (const before of locked.criteria) {
    const now = current.criteria.find((c) => c.id.toUpperCase() === before.id.toUpperCase());
    if (!now) {
      notes.push(`${before.id} is no longer in the contract (the lock is stale)`);
      continue;
    }
    // A reworded criterion is a contract change a reviewer saw in the task file: its steps may change too.
    if (now.descriptionSha256 !== before.descriptionSha256) {
      notes.push(`${before.id} changed in the contract: its steps are not held to the lock until it is updated`);
      continue;
    }
    if (before.steps.length > 0) held.push(before.id);
    for (const step of before.steps) {
      const found = now.steps.find((s) => s.title === step.title);
      const add = (message: string) => problems.push({ criterion: before.id, step: step.title, message });
      if (!found) {
        add(lostStep(before.id, step, now.steps, allNow));
        continue;
      }
      for (const message of weakenings(before.id, step, found, current.verifier)) add(message);
      if (found.fingerprint !== step.fingerprint && !problems.some((p) => p.step === step.title && p.criterion === before.id)) {
        notes.push(`${before.id}: "${step.title}" changed, every assertion kept`);
      }
    }
  }
  for (const criterion of current.criteria) {
    if (!locked.criteria.some((c) => c.id.toUpperCase() === criterion.id.toUpperCase()))
      notes.push(`${criterion.id} is not in the lock yet`);
  }
  problems.push(...sharedChanges(locked, current, held));
  return { problems, notes };
}

/** How one step that is still there got weaker. */
function weakenings(id: string, step: LockedStep, found: LockedStep, verifier: string): string[] {
  const out: string[] = [];
  if (found.weakened && !step.weakened) out.push(`"${step.title}" is now ${found.weakened}, so it can no longer prove ${id}`);
  for (const assertion of missing(step.assertions, found.assertions)) out.push(lostAssertion(step.title, assertion, found.assertions));
  // Kane's agent reads every line of a step as an instruction: a new line can change the verdict.
  if (verifier !== 'playwright') {
    for (const line of missing(found.assertions, step.assertions))
      out.push(`"${step.title}" gained the line \`${clip(line)}\`, which Kane's agent would follow`);
  }
  for (const read of missing(step.reads, found.reads))
    out.push(`"${step.title}": what its assertions read changed: \`${clip(shown(read))}\` is gone or different`);
  const watched = wordsOf([...step.assertions.filter((a) => found.assertions.includes(a)), ...step.reads]);
  for (const read of missing(found.reads, step.reads)) {
    const writes = writtenNames(read);
    if (read.startsWith('scope: ') || writes.some((name) => watched.has(name)))
      out.push(`"${step.title}": new code changes what its assertions read: \`${clip(shown(read))}\``);
  }
  // Where the test looks: a goto('/mock.html') stays on the app, but not on the page its criterion is about.
  for (const line of missing(step.navigation, found.navigation))
    out.push(`"${step.title}" no longer navigates as locked: \`${clip(shown(line))}\` is gone or different`);
  for (const line of missing(found.navigation, step.navigation))
    out.push(`"${step.title}" now navigates with \`${clip(shown(line))}\`: the page it asserts on may not be the one ${id} is about`);
  for (const call of missing(found.bypass, step.bypass)) {
    const why = /\bexpect\.extend\b/.test(call)
      ? 'a matcher its assertions use may no longer check anything'
      : 'the page it asserts on need not come from the app any more';
    out.push(`"${step.title}" now calls \`${clip(call)}\`: ${why}`);
  }
  return out;
}

/** The message for a locked assertion that is not there as it was: gone, or moved behind something. */
function lostAssertion(title: string, assertion: string, now: readonly string[]): string {
  const bare = assertion.split(' › ').at(-1)!;
  const moved = now.find((a) => a.split(' › ').at(-1) === bare && a !== assertion);
  if (moved) {
    const path = moved.split(' › ').slice(0, -1);
    const never = path.find((p) => p.startsWith(NEVER_RUNS));
    if (never) return `"${title}": the assertion \`${clip(bare)}\` can no longer fail the test: it ${never.slice(NEVER_RUNS.length)}`;
    return `"${title}": the assertion \`${clip(bare)}\` is now reached through \`${clip(path.join(' › ') || 'nothing')}\`, not as locked`;
  }
  return `"${title}" lost the assertion \`${clip(assertion)}\``;
}

/** Changes to what every step shares: the spec's top-level code, the verifier's inputs, the verdict config keys. */
function sharedChanges(locked: TestLock, current: TestLock, held: readonly string[]): LockFinding[] {
  const out: LockFinding[] = [];
  // Shared code and inputs only matter while a criterion is still held to its steps.
  if (held.length > 0) {
    const criterion = held.join(', ');
    const add = (message: string) => out.push({ criterion, step: '', message });
    for (const line of missing(locked.context, current.context))
      add(`the code every test shares changed: \`${clip(line)}\` is gone or different (imports and top-level code are locked)`);
    for (const line of missing(current.context, locked.context))
      add(`new code every test shares: \`${clip(line)}\` (imports and top-level code are locked; it could replace what the tests call)`);
    // Kane's steps share one browser: a step that verifies nothing can still take a later one elsewhere.
    for (const line of missing(locked.navigation, current.navigation))
      add(`where the test looks changed: \`${clip(line)}\` is gone or different (every step's navigation is locked)`);
    for (const line of missing(current.navigation, locked.navigation))
      add(`the test now navigates with \`${clip(line)}\`: the steps after it may look at another page`);
    for (const [file, hash] of Object.entries(locked.inputs)) {
      if (current.inputs[file] !== hash)
        out.push({
          criterion,
          step: '',
          file,
          message: `${file} ${current.inputs[file] ? 'changed' : 'is gone'}: the verifier reads it with ${current.testFile}`,
        });
    }
    for (const file of Object.keys(current.inputs).filter((f) => !(f in locked.inputs)))
      out.push({ criterion, step: '', file, message: `${file} is new: the verifier would read it with ${current.testFile}` });
  }
  for (const [key, hash] of Object.entries(locked.task.keys)) {
    if (current.task.keys[key] !== hash)
      out.push({
        criterion: 'every criterion',
        step: '',
        file: current.task.file,
        message: `${current.task.file}: ${key} changed since the lock: it decides what the verifier checks`,
      });
  }
  for (const [key, hash] of Object.entries(locked.config.keys)) {
    if (current.config.keys[key] !== hash)
      out.push({
        criterion: 'every criterion',
        step: '',
        file: current.config.file,
        message: `${current.config.file}: ${key} changed since the lock: it decides what the verifier looks at or how it judges`,
      });
  }
  return out;
}

function lostStep(id: string, step: LockedStep, forCriterion: readonly LockedStep[], everywhere: readonly LockedStep[]): string {
  const renamed =
    forCriterion.find((s) => s.fingerprint === step.fingerprint) ?? everywhere.find((s) => s.fingerprint === step.fingerprint);
  if (renamed) return `"${step.title}" was renamed to "${renamed.title}" (a rename needs \`elenchos lock --update\`)`;
  if (everywhere.some((s) => s.title === step.title)) return `"${step.title}" no longer verifies ${id}`;
  return `lost its verifying step "${step.title}"`;
}

/** Entries of `before` with no equal in `now` (counted, so a duplicated entry removed once is seen). */
function missing(before: readonly string[], now: readonly string[]): string[] {
  const left = [...now];
  const out: string[] = [];
  for (const entry of before) {
    const at = left.indexOf(entry);
    if (at < 0) out.push(entry);
    else left.splice(at, 1);
  }
  return out;
}

/**
 * Names a `reads: …` statement may write. A declaration writes what it declares (`const expected = …`);
 * any other statement is in the reads because it assigns or changes a name an assertion reads
 * (`expected = …`, `count++`, `expected.pop()`, `Object.assign(expected, …)`, `drop(expected)`), so every
 * name it mentions (property names after a dot aside) counts.
 */
function writtenNames(read: string): string[] {
  const statement = read.replace(/^\w+: /, '');
  const declared = /^(?:export\s+)?(?:const|let|var|function\*?|async function\*?)\s+([^=(]+)/.exec(statement);
  if (declared) return [...declared[1]!.matchAll(/[A-Za-z_$][\w$]*/g)].map((m) => m[0]);
  return [...statement.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)].map((m) => m[0]).filter((w) => w !== 'await' && w !== 'void');
}

function wordsOf(texts: readonly string[]): Set<string> {
  return new Set(texts.flatMap((t) => [...t.matchAll(/[A-Za-z_$][\w$]*/g)].map((m) => m[0])));
}

/** A `reads: …` entry as the statement it is (the other kinds, `scope:` and `fixtures:`, keep their prefix). */
function shown(read: string): string {
  return read.replace(/^reads: /, '');
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
