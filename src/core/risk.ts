import { z } from "zod/v4";

/** How risky a proposed change is: the playbook grades it, four eyes may require two approvers from a level up. */
export const RiskSchema = z.enum(["low", "medium", "high"]);
export type Risk = z.infer<typeof RiskSchema>;
