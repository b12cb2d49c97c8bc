// A step's heading as the live progress line shows it. The evidence keeps it as the verifier reported it;
// the line drops what it says already: a leading `Step 2 —` (the line says `step 2`) and the `@verifies`
// ids (Kane's rule: to the end of the line; the attempt's criteria table names them).
const LEADING_STEP = /^\s*step\s+\d+\s*(?:[—–:.-]\s*|$)/i;
const VERIFIES = /(?<![\w.@])@verifies\b.*$/i;

/** `Step 1 — open the home page @verifies AC-001` → `open the home page`; empty when nothing else is left (`Step 3`). */
export function displayHeading(heading: string): string {
  return heading.replace(VERIFIES, '').trim().replace(LEADING_STEP, '').trim();
}

/** `step 1 open the home page`, or `step 3` alone when the heading says nothing more. */
export function stepLabel(step: number, heading: string): string {
  const shown = displayHeading(heading);
  return shown ? `step ${step} ${shown}` : `step ${step}`;
}
