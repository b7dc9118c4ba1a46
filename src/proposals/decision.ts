/**
 * An approver's decision on a proposal, as the approval form and API send it.
 * Its own module: the approval routes load it at startup without the rest of
 * the proposal schemas.
 */
import { z } from "zod/v4";
import { readableText } from "../core/free-text";

export const DecisionSchema = z.object({
  decision: z.enum(["approve", "reject"]),
  reason: readableText(z.string().trim().min(3, "give a reason of at least 3 characters").max(500)),
});
export type Decision = z.infer<typeof DecisionSchema>;
