// One scan for every form of every secret (redact-forms.ts lists a few dozen per secret): an Aho-Corasick
// automaton, walked once per character whatever the number of forms. A regular expression of the same
// strings as alternatives costs time in proportion to their number (measured: 3 strings 65 ms, 60 strings
// 430 ms over a 20 MB log), which the forms of three secrets made the largest cost of redaction.
import type { Span } from './redact-wrapped.js';

// States this close to the root get a full row of transitions (the scan spends nearly all its time
// there); deeper ones, inside a long form, keep their children and fall back along failure links, so a
// 64 KB secret costs memory in proportion to its length, not to its length times the alphabet.
const DENSE_DEPTH = 4;
const NONE: Span[] = [];

/** Finds every occurrence of a fixed set of strings. */
export class FormMatcher {
  /** Character code → its class (0: a character no form holds). */
  private readonly classOf = new Uint16Array(65_536);
  private readonly classes: number;
  /** States 0..dense-1 (breadth-first order, so the shallow ones) have a row in `rows`. */
  private readonly dense: number;
  private readonly rows: Int32Array;
  /** A deep state's children, and where to go when none fits. */
  private readonly children: Map<number, number>[];
  private readonly fail: Int32Array;
  /** The longest form that ends in each state (0: none). */
  private readonly longest: Int32Array;

  constructor(forms: Iterable<string>) {
    const unique = [...new Set(forms)].filter((f) => f.length > 0);
    let classes = 1;
    for (const form of unique) {
      for (let i = 0; i < form.length; i++) {
        const code = form.charCodeAt(i);
        if (this.classOf[code] === 0) this.classOf[code] = classes++;
      }
    }
    this.classes = classes;
    // The trie, built breadth first so that states are numbered by depth.
    const trie: { children: Map<number, number>; depth: number; end: number }[] = [{ children: new Map(), depth: 0, end: 0 }];
    for (const form of unique) {
      let state = 0;
      for (let i = 0; i < form.length; i++) {
        const c = this.classOf[form.charCodeAt(i)]!;
        let child = trie[state]!.children.get(c);
        if (child === undefined) {
          child = trie.length;
          trie.push({ children: new Map(), depth: trie[state]!.depth + 1, end: 0 });
          trie[state]!.children.set(c, child);
        }
        state = child;
      }
      trie[state]!.end = form.length;
    }
    const order = [0];
    for (let head = 0; head < order.length; head++) for (const child of trie[order[head]!]!.children.values()) order.push(child);
    const renumber = new Int32Array(trie.length);
    order.forEach((old, i) => (renumber[old] = i));
    this.children = order.map((old) => new Map([...trie[old]!.children].map(([c, child]) => [c, renumber[child]!])));
    this.dense = order.findIndex((old) => trie[old]!.depth >= DENSE_DEPTH);
    if (this.dense < 0) this.dense = order.length;
    this.rows = new Int32Array(this.dense * classes);
    this.fail = new Int32Array(order.length);
    this.longest = new Int32Array(order.length);
    for (let state = 0; state < order.length; state++) {
      const end = trie[order[state]!]!.end;
      this.longest[state] = Math.max(end, state === 0 ? 0 : this.longest[this.fail[state]!]!);
      for (const [c, child] of this.children[state]!) this.fail[child] = state === 0 ? 0 : this.step(this.fail[state]!, c);
      if (state < this.dense) {
        for (let c = 0; c < classes; c++) {
          const child = this.children[state]!.get(c);
          this.rows[state * classes + c] = child ?? (state === 0 ? 0 : this.step(this.fail[state]!, c));
        }
      }
    }
  }

  /** Whether there is any form to find. */
  get empty(): boolean {
    return this.classes === 1;
  }

  private step(state: number, c: number): number {
    for (let s = state; ; s = this.fail[s]!) {
      if (s < this.dense) return this.rows[s * this.classes + c]!;
      const child = this.children[s]!.get(c);
      if (child !== undefined) return child;
    }
  }

  /** Every stretch of `text` some form covers, overlapping ones joined (touching ones not: two secrets side by side are two). */
  spans(text: string): Span[] {
    // Most lines hold nothing: no array is made for them.
    let spans: Span[] = NONE;
    if (this.empty) return spans;
    const { rows, longest, classOf, classes, dense } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = classOf[text.charCodeAt(i)]!;
      state = state < dense ? rows[state * classes + c]! : this.step(state, c);
      const length = longest[state]!;
      if (length === 0) continue;
      const start = i + 1 - length;
      if (spans === NONE) spans = [];
      // Found in the order they end: one that starts before the last one ends joins it (and any before).
      while (spans.length > 0 && start < spans.at(-1)!.end) {
        const last = spans.pop()!;
        if (last.start < start) {
          spans.push({ start: last.start, end: i + 1 });
          break;
        }
      }
      if (spans.at(-1)?.end !== i + 1) spans.push({ start, end: i + 1 });
    }
    return spans;
  }
}
