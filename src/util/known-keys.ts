// The keys a zod schema allows at a JSON path, and the one a misspelt key most likely meant: an unknown
// key's line names its fix (`agent.timeout` → `agent.timeoutSeconds`).
import type * as z from 'zod';

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown): Def | null => (schema as { _zod?: { def?: Def } } | null)?._zod?.def ?? null;

/** Through optional, default, nullable, pipe and lazy wrappers to the schema that decides the shape. */
function unwrapped(schema: unknown, depth = 0): unknown {
  const def = defOf(schema);
  if (!def || depth > 16) return schema;
  if ('innerType' in def) return unwrapped(def.innerType, depth + 1);
  if (def.type === 'pipe') return unwrapped(def.in, depth + 1);
  if (def.type === 'lazy' && typeof def.getter === 'function') return unwrapped((def.getter as () => unknown)(), depth + 1);
  return schema;
}

/** The schemas a key leads to (a union may offer several). */
function children(schema: unknown, key: PropertyKey): unknown[] {
  const s = unwrapped(schema);
  const def = defOf(s);
  if (!def) return [];
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      return typeof key === 'string' && key in shape ? [shape[key]] : [];
    }
    case 'array':
      return typeof key === 'number' ? [def.element] : [];
    case 'record':
      return [def.valueType];
    case 'union':
      return (def.options as unknown[]).flatMap((o) => children(o, key));
    default:
      return [];
  }
}

/** Every key an object at `path` of `schema` may have; empty when the path leads to no object. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown[] = [schema];
  for (const key of path) current = current.flatMap((s) => children(s, key));
  const keys = current.flatMap((s) => {
    const def = defOf(unwrapped(s));
    if (def?.type === 'object') return Object.keys(def.shape as object);
    if (def?.type === 'union') return (def.options as unknown[]).flatMap((o) => knownKeysAt(o as z.ZodType, []));
    return [];
  });
  return [...new Set(keys)];
}

/** The known key `key` most likely meant: one it starts or ends (`timeout` → `timeoutSeconds`), else one a typo or two away. */
export function closestKey(key: string, known: readonly string[]): string | null {
  const lower = key.toLowerCase();
  const affix = known.filter((k) => {
    const l = k.toLowerCase();
    return lower.length >= 3 && l !== lower && (l.startsWith(lower) || lower.startsWith(l) || l.endsWith(lower));
  });
  if (affix.length === 1) return affix[0]!;
  const limit = key.length <= 4 ? 1 : 2;
  const near = known
    .map((k) => ({ k, d: distance(lower, k.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d);
  if (near.length > 0 && (near.length === 1 || near[0]!.d < near[1]!.d)) return near[0]!.k;
  return affix.length > 1 ? (affix.sort((a, b) => a.length - b.length)[0] ?? null) : null;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit (`tiemout`). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}
