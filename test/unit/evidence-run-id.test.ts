import { describe, expect, it } from 'vitest';
import { newRunId, RUN_ID_PATTERN } from '../../src/evidence/run-id.js';

describe('newRunId', () => {
  it('encodes the UTC time to the millisecond', () => {
    const id = newRunId(new Date('2026-11-30T04:56:12.123Z'));
    expect(id).toMatch(/^20261130-045612-123-[0-9a-f]{6}$/);
    expect(id).toMatch(RUN_ID_PATTERN);
    expect(RUN_ID_PATTERN.test('not-a-run')).toBe(false);
  });

  it('sorts lexically in time order', () => {
    const times = [
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.001Z',
      '2025-01-01T00:00:01.000Z',
      '2025-12-31T23:59:59.999Z',
      '2026-02-03T10:00:00.000Z',
      '2099-01-01T00:00:00.000Z',
    ];
    const ids = times.map((t) => newRunId(new Date(t)));
    expect([...ids].sort()).toEqual(ids);
    expect([...ids].reverse().sort()).toEqual(ids);
  });

  it('is unique and in creation order over 10,000 calls', () => {
    const ids = Array.from({ length: 10_000 }, () => newRunId());
    expect(new Set(ids).size).toBe(10_000);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(RUN_ID_PATTERN);
  });

  it('stays unique when the same instant is passed many times', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const ids = Array.from({ length: 5_000 }, () => newRunId(now));
    expect(new Set(ids).size).toBe(5_000);
    expect([...ids].sort()).toEqual(ids);
  });
});
