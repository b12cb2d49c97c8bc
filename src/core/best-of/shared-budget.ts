// One candidate's share of a best-of run's budget: its own totals (its run.json `cost`), every step
// added to the whole run's too, and the caps asked of the whole run, counting what the other
// candidates' steps already under way are expected to spend.
import { BudgetTracker, type AgentSpend, type BudgetCaps, type NextStep, type Pending } from '../run/budget.js';

/** The whole best-of run's totals and caps, and what each candidate's step under way is expected to spend. */
export class WholeRunBudget extends BudgetTracker {
  private readonly underWay = new Map<CandidateBudget, Pending>();

  constructor(caps: BudgetCaps, startedAt: number) {
    super(caps, startedAt);
  }

  /** Whether `owner` may start `next`; if so, reserves what that step is expected to spend until `owner` records it. */
  gateFor(owner: CandidateBudget, next: NextStep, now: number): string | null {
    const pending = { usd: 0, credits: 0 };
    for (const [other, p] of this.underWay) {
      if (other === owner) continue;
      pending.usd += p.usd;
      pending.credits += p.credits;
    }
    const refused = this.gate(next, now, pending);
    if (refused === null) this.underWay.set(owner, this.estimate(next));
    return refused;
  }

  /** `owner`'s step is recorded (or it ended): its reservation goes. */
  release(owner: CandidateBudget): void {
    this.underWay.delete(owner);
  }
}

export class CandidateBudget extends BudgetTracker {
  constructor(
    private readonly whole: WholeRunBudget,
    startedAt: number,
  ) {
    super({}, startedAt);
  }

  override recordAgent(spend: AgentSpend): ReturnType<BudgetTracker['recordAgent']> {
    this.whole.recordAgent(spend);
    this.whole.release(this);
    return super.recordAgent(spend);
  }

  override recordVerifier(credits: number | null, durationMs: number): void {
    this.whole.recordVerifier(credits, durationMs);
    this.whole.release(this);
    super.recordVerifier(credits, durationMs);
  }

  /**
   * The caps are the whole run's (--max-cost-usd, --max-minutes, --max-kane-credits over every candidate),
   * and the other candidates' steps under way count as spent by what the last step of that kind cost.
   */
  override gate(next: NextStep, now = Date.now()): string | null {
    return this.whole.gateFor(this, next, now);
  }

  /** The candidate ended: a step it was allowed but never recorded reserves nothing any more. */
  ended(): void {
    this.whole.release(this);
  }
}
