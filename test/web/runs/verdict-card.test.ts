import { describe, expect, it } from "vitest";
import type { GeneratorHealth } from "../../../src/runs/generator-health";
import type { RunDetail, Verdict } from "../../../src/runs/run-schemas";
import { GENERATOR_LIMITED_PASS, verdictCard } from "../../../src/web/runs/run-sections";
import { textOf } from "../../helpers/approval-pages";

// The run page's verdict: a pass shows each check's measured value beside
// it, a pass while the generator was the limit says what that means in one
// sentence, and a check that is a sentence is text that can wrap, not code.

const PASSED: Verdict = {
  result: "passed",
  inconclusive_reason: null,
  checks: [
    { check: "p99_ms < 300", measured: 41.2, at_least: false, passed: true },
    {
      check: "every planned order left within max_lateness_ms (none dropped)",
      measured: 0,
      at_least: false,
      passed: true,
    },
  ],
  failed: [],
};

/** verdictCard reads only the verdict and the generator's health. */
function run(verdict: Verdict, generator: Pick<GeneratorHealth, "limited">): RunDetail {
  return { verdict, generator } as unknown as RunDetail;
}

describe("the verdict card", () => {
  it("a pass lists every check with what it measured, open, not behind 'Every check'", () => {
    const html = String(verdictCard(run(PASSED, { limited: false })));
    expect(textOf(html)).toContain("Verdict: passed, every check held: Held: p99_ms < 300 (measured 41.2)");
    expect(html).not.toContain("<details>");
    expect(html).not.toContain('id="generator-note"');
  });

  it("a check that is a sentence is text, which wraps; a threshold stays code", () => {
    const html = String(verdictCard(run(PASSED, { limited: false })));
    expect(html).toContain("<code>p99_ms &lt; 300</code>");
    expect(html).not.toContain("<code>every planned order");
    expect(textOf(html)).toContain("every planned order left within the allowed lateness (none dropped)");
  });

  it("a pass while the generator was the limit says plainly what the pass means", () => {
    const html = String(verdictCard(run(PASSED, { limited: true })));
    expect(textOf(html)).toContain(GENERATOR_LIMITED_PASS);
    expect(GENERATOR_LIMITED_PASS.split(/[.:] /).length).toBeLessThanOrEqual(2);
  });

  it("a failure still leads with what failed, every check behind a summary", () => {
    const failed: Verdict = {
      ...PASSED,
      result: "failed",
      checks: [{ check: "p99_ms < 300", measured: 900, at_least: false, passed: false }],
      failed: ["p99_ms < 300 failed: measured 900 ms"],
    };
    const html = String(verdictCard(run(failed, { limited: false })));
    expect(html).toContain("<details><summary>Every check</summary>");
  });
});
