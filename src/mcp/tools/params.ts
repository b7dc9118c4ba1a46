import { z } from "zod/v4";
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

export const OrderIdParam = z.string().min(1).max(140).describe("Public order id, e.g. ORD-1004");

export const ProposalIdParam = z.string().min(1).max(100).describe("Proposal id, e.g. prop_...");
