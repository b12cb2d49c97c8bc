#!/usr/bin/env node
// Classifying a ~50 MB Kane stream vs the floor, a bare JSON.parse loop over the same lines (SPEC §10:
// target ≥ 0.7× the floor's speed, memory flat). Run after `npm run build`: node bench/classify-stream.js [MB]
// The stream is made of real passing steps from test/fixtures/kane-corpus, renumbered, with noise lines mixed in.
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineSplitter, NdjsonReader } from '../dist/util/ndjson-reader.js';
import { KaneStreamState } from '../dist/verifiers/kane/stream-state.js';
import { classifyKane } from '../dist/verifiers/kane/classify.js';

const targetBytes = Number(process.argv[2] ?? 50) * 1024 * 1024;
const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/kane-corpus');

/** Per-step blocks (test_md_step_start … test_md_step_end) of the passing captures. */
function stepBlocks() {
  const blocks = [];
  for (const name of ['t1-shop_filter-author', 't2-home_cta-author']) {
    let current = null;
    for (const line of readFileSync(path.join(corpus, `${name}.ndjson`), 'utf8').split('\n')) {
      if (line.includes('"type":"test_md_step_start"')) current = [];
      if (current) current.push(line);
      if (current && line.includes('"type":"test_md_step_end"')) {
        blocks.push(current);
        current = null;
      }
    }
  }
  return blocks;
}

async function generate(file) {
  const out = createWriteStream(file);
  const write = async (line) => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  const blocks = stepBlocks();
  const declared = [];
  let bytes = 0;
  await write('{"type":"stream_start","cli_version":"0.8.17-beta.1","surface":"testmd","pid":1,"v":1,"ts":"2026-09-21T08:49:55.832Z"}');
  while (bytes < targetBytes) {
    const index = declared.length + 1;
    const block = blocks[declared.length % blocks.length];
    const heading = `Step ${index} — generated`;
    declared.push({ index, heading, optional: false });
    for (const raw of block) {
      const line = raw.replace(/"step_index":\d+/, `"step_index":${index}`).replace(/"heading":"[^"]*"/, `"heading":"${heading}"`);
      bytes += line.length + 1;
      await write(line);
    }
    if (index % 500 === 0) await write('Skill update available: 0.8.17 → 0.8.18');
  }
  const n = declared.length;
  await write(
    `{"type":"test_md_summary","overall_status":"passed","duration_s":1,"steps":{"total":${n},"passed":${n},"failed":0,"skipped":0},"cancelled":false}`,
  );
  await write('{"type":"test_md_done","overall_status":"passed","duration_s":1,"session_id":"bench"}');
  out.end();
  await once(out, 'finish');
  return declared;
}

async function eachLine(file, onLine) {
  const splitter = new LineSplitter();
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 })) splitter.push(chunk, onLine);
  splitter.end(onLine);
}

async function floor(file, memory) {
  let parsed = 0;
  await eachLine(file, (line) => {
    if ((parsed & 1023) === 0) memory.peak = Math.max(memory.peak, process.memoryUsage.rss());
    try {
      JSON.parse(line);
      parsed++;
    } catch {
      // skipped, as any reader must
    }
  });
  return parsed;
}

async function classify(file, declared, memory) {
  const reader = new NdjsonReader();
  const state = new KaneStreamState();
  await eachLine(file, (line) => {
    const event = reader.read(line);
    if (event) state.feed(event);
    if ((reader.stats.lines & 1023) === 0) memory.peak = Math.max(memory.peak, process.memoryUsage.rss());
  });
  const process_ = {
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    outputCapped: false,
    spawnError: null,
    timeoutMs: 1,
    lastStderrLine: null,
  };
  return classifyKane({ facts: state.result(), process: process_, declared, eventCount: reader.stats.events, evidencePack: null }).status;
}

async function time(fn) {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-'));
try {
  const file = path.join(dir, 'stream.ndjson');
  const declared = await generate(file);
  const size = statSync(file).size;
  const mb = size / 1024 / 1024;
  // Memory first, each measured from a collected heap, so one loop's garbage is not charged to the other.
  const measure = async (fn) => {
    globalThis.gc?.();
    const memory = { peak: process.memoryUsage.rss() };
    const baseline = memory.peak;
    await fn(memory);
    return (memory.peak - baseline) / 1024 / 1024;
  };
  const floorRss = await measure((memory) => floor(file, memory));
  const oursRss = await measure((memory) => classify(file, declared, memory));
  let bestFloor = Infinity;
  let bestOurs = Infinity;
  let status = null;
  const scratch = { peak: 0 };
  for (let round = 0; round < 3; round++) {
    bestFloor = Math.min(bestFloor, (await time(() => floor(file, scratch))).ms);
    const ours = await time(() => classify(file, declared, scratch));
    bestOurs = Math.min(bestOurs, ours.ms);
    status = ours.value;
  }
  console.log(`stream: ${mb.toFixed(1)} MB, ${declared.length} steps, classified ${status}`);
  console.log(`floor (JSON.parse loop): ${(mb / (bestFloor / 1000)).toFixed(1)} MB/s (${bestFloor.toFixed(0)} ms)`);
  console.log(`classify (reader + state machine + classifier): ${(mb / (bestOurs / 1000)).toFixed(1)} MB/s (${bestOurs.toFixed(0)} ms)`);
  console.log(`ratio: ${(bestFloor / bestOurs).toFixed(2)}× the floor's speed (target ≥ 0.70)`);
  console.log(
    `peak RSS delta: classify ${oursRss.toFixed(1)} MB, floor ${floorRss.toFixed(1)} MB (stream ${mb.toFixed(0)} MB; run with --expose-gc for clean baselines)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
