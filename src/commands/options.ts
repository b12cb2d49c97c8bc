// Shared flag parsers; their errors go through commander's usage path (exit 3).
import { InvalidArgumentError } from 'commander';

/** A whole number ≥ 0. */
export function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number (0 or more)');
  return Number(value);
}
