// Shared flag parsers; their errors go through commander's usage path (exit 3).
import { InvalidArgumentError } from 'commander';

/** A number > 0 (dollars, credits, minutes). */
export function parsePositive(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError('expected a number greater than 0');
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

/** A whole number ≥ 0. */
export function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number (0 or more)');
  return Number(value);
}
