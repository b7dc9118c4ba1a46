import { z } from "zod/v4";
import { readableText } from "../../core/free-text";
import { GENERATOR_MODES_DESCRIBED, GeneratorModeSchema } from "../../synth/generators";
import { MAX_SEED } from "../../synth/prng";

/** Parameters shared by several tools, described once. */
export const ModeParam = GeneratorModeSchema.default("seeded").describe(GENERATOR_MODES_DESCRIBED);

export const SeedParam = z
  .number()
  .int()
  .min(0)
  .max(MAX_SEED)
  .optional()
  .describe(`Generator seed, 0-${MAX_SEED}; omit for a new one. A reported seed replays its orders.`);

export const EmptyInput = z.object({});

// Every free-text input refuses control and bidirectional formatting characters (core/free-text.ts); the change
// kinds' own inputs (a cancel reason, an address) use the same readableText, since their schemas live below mcp/.
export const OrderIdParam = readableText(z.string().min(1).max(140)).describe("Public order id, e.g. ORD-1004");

export const ProposalIdParam = readableText(z.string().min(1).max(100)).describe("Proposal id, e.g. prop_...");
