// One candidate's share of a best-of run's budget: its own totals (its run.json `cost`), every step
// added to the whole run's too, and the caps asked of the whole run.
import { BudgetTracker, type AgentSpend, type NextStep } from '../run/budget.js';

export class CandidateBudget extends BudgetTracker {
  constructor(
    private readonly whole: BudgetTracker,
    startedAt: number,
  ) {
    super({}, startedAt);
  }

  override recordAgent(spend: AgentSpend): ReturnType<BudgetTracker['recordAgent']> {
    this.whole.recordAgent(spend);
    return super.recordAgent(spend);
  }

  override recordVerifier(credits: number | null, durationMs: number): void {
    this.whole.recordVerifier(credits, durationMs);
    super.recordVerifier(credits, durationMs);
  }

  /** The caps are the whole run's (--max-cost-usd, --max-minutes, --max-kane-credits over every candidate). */
  override gate(next: NextStep, now = Date.now()): string | null {
    return this.whole.gate(next, now);
  }
}
