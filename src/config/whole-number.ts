import { z } from "zod/v4";

/** A variable holding a whole number in [min, max], with messages that say which bound was crossed. */
export function boundedInt(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}
