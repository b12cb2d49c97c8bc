import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/util/json-scan.js';

describe('firstDuplicateKey', () => {
  it.each([
    ['{"status":"failed","status":"passed"}', 'status'],
    ['{"type":"run_end","verdict":{"confirmed":false,"confirmed":true}}', 'confirmed'],
    ['{"a":[{"x":1},{"x":2,"x":3}]}', 'x'],
    ['{"st\\u0061tus":"failed","status":"passed"}', 'status'],
    ['{"a":1,"b":{"c":2},"a":3}', 'a'],
    // After an array closes, keys are keys again.
    ['{"list":[1,[2]],"status":"failed","status":"passed"}', 'status'],
  ])('finds the repeated key in %s', (json, key) => {
    expect(firstDuplicateKey(json)).toBe(key);
  });

  it.each([
    '{"status":"passed"}',
    // The same key in sibling or nested objects, and key-like strings in values, are fine.
    '{"a":{"x":1},"b":{"x":1},"x":{"x":{"x":1}}}',
    '{"message":"\\"status\\":1, \\"status\\":2","status":"failed"}',
    '{"list":["a","a"],"m":"{\\"k\\":1,\\"k\\":2}"}',
    '{"a\\\\":1,"a":2}',
    // Values that spell a key already seen, in objects and in arrays, are values.
    '{"a":"a"}',
    '{"a":"b","b":"a"}',
    '{"a":["b","a"],"b":1}',
    '{"a":{"x":1},"x":2}',
    '[{"a":1},{"a":1}]',
    '{}',
  ])('finds none in %s', (json) => {
    JSON.parse(json);
    expect(firstDuplicateKey(json)).toBeNull();
  });

  it('reads a line nested 100,000 deep (JSON.parse takes it) without a stack overflow, to the duplicate at its bottom', () => {
    const deep = `${'{"a":['.repeat(100_000)}{"status":"failed","status":"passed"}${']}'.repeat(100_000)}`;
    JSON.parse(deep);
    expect(firstDuplicateKey(deep)).toBe('status');
    expect(firstDuplicateKey(deep.replace('"status":"passed"', '"other":"passed"'))).toBeNull();
  });
});
