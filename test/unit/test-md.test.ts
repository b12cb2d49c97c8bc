import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTestMd, readVerifies } from '../../src/verifiers/kane/test-md.js';

const corpus = (name: string) => readFileSync(new URL(`../fixtures/kane-corpus/tests/${name}`, import.meta.url), 'utf8');

describe('parseTestMd', () => {
  it('splits on "## " lines and ignores everything before the first step', () => {
    const md = parseTestMd('---\nurl: x\n---\n# Title\n\nintro\n## One\nbody 1\n## Two\nbody 2\n');
    expect(md.frontmatter).toBe('url: x');
    expect(md.title).toBe('Title');
    expect(md.steps.map((s) => [s.index, s.heading, s.body])).toEqual([
      [1, 'One', 'body 1'],
      [2, 'Two', 'body 2'],
    ]);
  });

  it('reads the corpus tests with their em-dash headings exactly as Kane reports them', () => {
    const md = parseTestMd(corpus('cart_discount_test.md'));
    expect(md.steps).toHaveLength(5);
    expect(md.steps[0]!.heading).toBe('Step 1 — pin the presentation currency to USD');
    expect(md.steps[4]!.heading).toBe('Step 5 — assert the total is ten percent below the subtotal');
  });

  it('does not take @verifies inside HTML comments before the first step', () => {
    for (const name of ['cart_discount_test.md', 'home_cta_test.md', 'shop_filter_test.md', 'orders_persist_test.md']) {
      const md = parseTestMd(corpus(name));
      expect(md.steps.every((s) => s.verifies.length === 0)).toBe(true);
    }
  });

  it('treats a fenced yaml block under a heading as step config, not body', () => {
    const md = parseTestMd('## Maybe\n\n```yaml\noptional: true\ntimeout: 30\n```\nDo it.\n## Import\n@import ./helpers/login.md\n');
    expect(md.steps[0]).toMatchObject({ config: 'optional: true\ntimeout: 30', optional: true, body: 'Do it.' });
    expect(md.steps[1]).toMatchObject({ importPath: './helpers/login.md', optional: false });
  });

  it('counts a "## " line inside a body as a new step, as Kane does', () => {
    expect(parseTestMd('## A\ntext\n## Core flow\nmore\n').steps).toHaveLength(2);
    expect(parseTestMd('## A\n### not a step\n').steps).toHaveLength(1);
  });

  it('handles CRLF and a missing frontmatter', () => {
    const md = parseTestMd('# T\r\n## One @verifies AC-1\r\nx\r\n');
    expect(md.frontmatter).toBeNull();
    expect(md.steps[0]).toMatchObject({ heading: 'One @verifies AC-1', verifies: ['AC-1'] });
  });
});

describe('readVerifies', () => {
  it('reads comma and space separated ids from headings and bodies', () => {
    expect(readVerifies('Step 2 — assert @verifies ac-14, ac-8')).toEqual(['ac-14', 'ac-8']);
    expect(readVerifies('@verifies AC-001 AC-002\nlater @verifies AC-003.')).toEqual(['AC-001', 'AC-002', 'AC-003']);
  });

  it('takes whole tokens only and stops at prose', () => {
    expect(readVerifies('@verifies apps/fixture/README.md:20 the claim')).toEqual([]);
    expect(readVerifies('@verifies AC-1 the thing AC-10')).toEqual(['AC-1']);
    expect(readVerifies('<!-- @verifies AC-2 -->')).toEqual(['AC-2']);
    expect(readVerifies('email@verifies.com AC-1')).toEqual([]);
  });

  it('drops duplicates case-insensitively, keeping the first spelling', () => {
    expect(readVerifies('@verifies AC-1, ac-1')).toEqual(['AC-1']);
  });
});
