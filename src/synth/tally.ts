import { MAX_SAMPLE_FAILURES } from "./batch-summary";

/** What one order's answer contributes to a batch's tally. */
export type Answer =
  | { readonly kind: "accepted"; readonly status: number; readonly totalCents: number }
  | { readonly kind: "rejected"; readonly status: number; readonly reason: string };

export interface TallySnapshot {
  readonly sent: number;
  readonly accepted: number;
  readonly rejected: number;
  readonly status_counts: Record<string, number>;
  readonly accepted_total_cents: number;
  readonly sample_failures: string[];
}

/**
 * A running tally in constant memory: counts are commutative, and the sample
 * failures are the first few rejections by position in the batch, not by
 * arrival, so the same seed always reports the same samples however the
 * answers interleave. Nothing per order is kept once it has been counted.
 */
export class Tally {
  private sent = 0;
  private accepted = 0;
  private rejected = 0;
  private acceptedTotalCents = 0;
  private readonly statusCounts: Record<string, number> = {};
  /** At most MAX_SAMPLE_FAILURES entries, kept sorted by batch position. */
  private readonly samples: { index: number; reason: string }[] = [];

  get answered(): number {
    return this.sent;
  }

  add(index: number, answer: Answer): void {
    this.sent++;
    const key = String(answer.status);
    this.statusCounts[key] = (this.statusCounts[key] ?? 0) + 1;
    if (answer.kind === "accepted") {
      this.accepted++;
      this.acceptedTotalCents += answer.totalCents;
      return;
    }
    this.rejected++;
    const last = this.samples.at(-1);
    if (this.samples.length >= MAX_SAMPLE_FAILURES && last !== undefined && last.index < index) return;
    this.samples.push({ index, reason: answer.reason });
    this.samples.sort((a, b) => a.index - b.index);
    if (this.samples.length > MAX_SAMPLE_FAILURES) this.samples.pop();
  }

  snapshot(): TallySnapshot {
    return {
      sent: this.sent,
      accepted: this.accepted,
      rejected: this.rejected,
      // Integer-like keys enumerate in numeric order, so equal tallies serialize identically.
      status_counts: { ...this.statusCounts },
      accepted_total_cents: this.acceptedTotalCents,
      sample_failures: this.samples.map((s) => s.reason),
    };
  }
}
