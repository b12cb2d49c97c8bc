// The NDJSON reader, splitter and writer: bad lines are counted and kept, never fatal.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter, NdjsonReader } from '../../src/util/ndjson-reader.js';
import { NdjsonWriter } from '../../src/util/ndjson-writer.js';
import { tempDir } from '../helpers/temp.js';

describe('NdjsonReader', () => {
  it('returns objects and counts blank, non-JSON and non-object lines', () => {
    const reader = new NdjsonReader();
    const lines = ['{"type":"a"}', '', '   ', 'Skill update available', '{"type":', '[1,2]', '42', '  {"type":"b"}  ', 'x'.repeat(500)];
    const events = lines.map((l) => reader.read(l)).filter(Boolean);
    expect(events).toEqual([{ type: 'a' }, { type: 'b' }]);
    expect(reader.stats).toMatchObject({ lines: 9, events: 2, blank: 2, invalid: 5 });
    expect(reader.skipped).toBe(7);
    expect(reader.stats.samples).toHaveLength(5);
    expect(reader.stats.samples[0]).toBe('Skill update available');
  });

  it('keeps at most five samples, each at most 200 characters', () => {
    const reader = new NdjsonReader();
    for (let i = 0; i < 10; i++) reader.read(`junk ${i} ${'y'.repeat(300)}`);
    expect(reader.stats.samples).toHaveLength(5);
    expect(reader.stats.samples[0]!.length).toBe(201);
  });
});

describe('LineSplitter', () => {
  it('joins lines split across chunks and strips CR', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter();
    for (const chunk of ['{"a":', '1}\r\n{"b"', ':2}\n\n', 'tail']) splitter.push(chunk, (l) => lines.push(l));
    splitter.end((l) => lines.push(l));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '', 'tail']);
  });
});

describe('NdjsonWriter + NdjsonReader', () => {
  it('round-trips events through a file', async () => {
    const file = path.join(tempDir(), 'events.ndjson');
    const writer = NdjsonWriter.open(file);
    await writer.write({ type: 'one' });
    await writer.write({ type: 'two', n: 2 });
    await writer.close();
    await writer.close();
    expect(readFileSync(file, 'utf8')).toBe('{"type":"one"}\n{"type":"two","n":2}\n');
    const seen: unknown[] = [];
    const reader = new NdjsonReader();
    const splitter = new LineSplitter();
    const onLine = (line: string) => {
      const event = reader.read(line);
      if (event) seen.push(event);
    };
    splitter.push(readFileSync(file, 'utf8'), onLine);
    splitter.end(onLine);
    const stats = reader.stats;
    expect(seen).toEqual([{ type: 'one' }, { type: 'two', n: 2 }]);
    expect(stats).toMatchObject({ events: 2, blank: 0, invalid: 0 });
    await expect(writer.write({})).rejects.toThrow('closed');
  });
});
