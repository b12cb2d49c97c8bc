// What an unknown key most likely meant (src/util/known-keys.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closestKey, knownKeysAt } from '../../src/util/known-keys.js';
import { ConfigSchema } from '../../src/config/config-schema.js';

describe('the key an unknown one meant', () => {
  it('is a key it starts or ends, or one a typo or two away; nothing when it is not close', () => {
    const keys = ['timeoutSeconds', 'command', 'args', 'type', 'model'];
    expect(closestKey('timeout', keys)).toBe('timeoutSeconds');
    expect(closestKey('comand', keys)).toBe('command');
    expect(closestKey('tpye', keys)).toBe('type');
    expect(closestKey('Model', keys)).toBe('model');
    expect(closestKey('colour', keys)).toBeNull();
    expect(closestKey('ar', keys)).toBeNull();
  });

  it('is looked for among the keys the schema allows at that path, through wrappers, arrays and records', () => {
    const schema = z.strictObject({
      list: z.array(z.strictObject({ id: z.string() })).optional(),
      named: z.record(z.string(), z.strictObject({ timeoutSeconds: z.number() })).default({}),
    });
    expect(knownKeysAt(schema, [])).toEqual(['list', 'named']);
    expect(knownKeysAt(schema, ['list', 0])).toEqual(['id']);
    expect(knownKeysAt(schema, ['named', 'x'])).toEqual(['timeoutSeconds']);
    expect(knownKeysAt(schema, ['nowhere'])).toEqual([]);
    expect(knownKeysAt(ConfigSchema, ['agent'])).toContain('timeoutSeconds');
  });
});
