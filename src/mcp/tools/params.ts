import { z } from "zod/v4";
import { ANY_PROPOSE_TOOL } from "../../orders/change-kinds";
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
  .describe(
    `Generator seed, 0-${MAX_SEED}. Omit it and the server picks one and reports it; pass a reported seed back to replay exactly the same orders.`,
  );

export const EmptyInput = z.object({});

export const OrderIdParam = z.string().min(1).max(140).describe("Public order id, e.g. ORD-1004");

export const ProposalIdParam = z
  .string()
  .min(1)
  .max(100)
  .describe(`Proposal id returned by ${ANY_PROPOSE_TOOL}, e.g. prop_...`);
