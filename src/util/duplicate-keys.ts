// JSON.parse keeps the last of two equal keys: `{"status":"failed","status":"passed"}` reads as passed.
// A producer we trust never writes that; whoever does is steering the reader, so we look for it.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first key that appears twice in one object of `json`, at any depth (a nested verdict's
 * `confirmed` matters as much as a top-level `status`), or null. `json` must already have parsed:
 * this scanner only tracks strings, nesting and commas. Escaped spellings of a key compare decoded.
 */
export function firstDuplicateKey(json: string): string | null {
  const objects: (Set<string> | null)[] = []; // null for an array level
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      let escaped = false;
      while (end < json.length && json.charCodeAt(end) !== QUOTE) {
        if (json.charCodeAt(end) === BACKSLASH) {
          escaped = true;
          end++;
        }
        end++;
      }
      const keys = objects.at(-1);
      if (expectKey && keys) {
        const key = escaped ? (JSON.parse(json.slice(i, end + 1)) as string) : json.slice(i + 1, end);
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      objects.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      objects.push(null);
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      objects.pop();
    } else if (c === 0x2c) {
      expectKey = objects.at(-1) != null;
    }
  }
  return null;
}
