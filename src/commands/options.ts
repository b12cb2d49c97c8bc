// Shared flag parsers; their errors go through commander's usage path (exit 3).
import { InvalidArgumentError } from 'commander';
import { GUARD_NAMES, type GuardName } from '../states.js';

/** A number > 0 (dollars, credits, minutes); four hundred digits of nines are Infinity, not a cap. */
export function parsePositive(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0 || !Number.isFinite(Number(value)))
    throw new InvalidArgumentError('expected a number greater than 0');
  return Number(value);
}

/** The --max-* flags as config overrides (`budget.*`). */
export function budgetOverrides(options: {
  maxCostUsd?: number;
  maxKaneCredits?: number;
  maxMinutes?: number;
}): Record<string, number | undefined> {
  return {
    'budget.maxCostUsd': options.maxCostUsd,
    'budget.maxKaneCredits': options.maxKaneCredits,
    'budget.maxMinutes': options.maxMinutes,
  };
}

/** A whole number ≥ 0 (at most Number.MAX_SAFE_INTEGER: more digits would not read back as typed). */
export function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a whole number (0 or more)');
  return Number(value);
}

/** `--require sandbox,processScan`: guard names (docs/verification.md#what-stood-behind-a-verdict), each known. */
export function parseGuards(value: string): GuardName[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(GUARD_NAMES as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0)
    throw new InvalidArgumentError(
      `${unknown.length > 0 ? `not a guard: ${unknown.join(', ')}; ` : ''}expected guard names from ${GUARD_NAMES.join(', ')}`,
    );
  return [...new Set(names as GuardName[])];
}

/** Tasks verified at once: each is a worktree, an app and a verifier, so a few dozen is already more than any machine runs well. */
export const MAX_WORKERS = 64;

/** `--workers <n>`: 1 to MAX_WORKERS. */
export function parseWorkers(value: string): number {
  const n = parseCount(value);
  if (n < 1 || n > MAX_WORKERS) throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_WORKERS}`);
  return n;
}
