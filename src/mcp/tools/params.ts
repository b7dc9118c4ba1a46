import { z } from "zod/v4";
import { readableText } from "../../core/free-text";
import { ANY_PROPOSE_TOOL } from "../../orders/change-kinds";
import { GeneratorModeSchema } from "../../synth/generators";
import { MAX_SEED } from "../../synth/prng";

/** Parameters shared by several tools, described once. */
export const ModeParam = GeneratorModeSchema.default("seeded").describe(
  '"seeded" samples the real catalog and customers, so the API accepts every order (201). "simple" invents every field, so the API rejects every order (422): use it to drill the rejection path.',
);

export const SeedParam = z
  .number()
  .int()
  .min(0)
  .max(MAX_SEED)
  .optional()
  .describe(
    `Generator seed, 0-${MAX_SEED}. Omit it and the server picks one and reports it; pass a reported seed back to replay exactly the same orders.`,
  );

export const EmptyInput = z.object({});

// Every free-text input refuses control and bidirectional formatting characters (core/free-text.ts); the change
// kinds' own inputs (a cancel reason, an address) use the same readableText, since their schemas live below mcp/.
export const OrderIdParam = readableText(z.string().min(1).max(140)).describe("Public order id, e.g. ORD-1004");

export const ProposalIdParam = readableText(z.string().min(1).max(100)).describe(
  `Proposal id returned by ${ANY_PROPOSE_TOOL}, e.g. prop_...`,
);
