/**
 * Load zones: the Cloudflare regions a run's shards may be created in
 * (Durable Object location hints), and one zone's share of a run's figures.
 */
import { z } from "zod/v4";

/**
 * Cloudflare's location hints for a Durable Object (where it is created): the load zones a run may send from. A hint
 * is a region, never a URL or host: the target stays the configured one.
 */
export const LocationSchema = z.enum(["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"]);
export type Location = z.infer<typeof LocationSchema>;

/** The tools' `locations` parameter, the same for a run and a search. */
export const LocationsParam = z
  .array(LocationSchema)
  .max(LocationSchema.options.length)
  .optional()
  .describe(
    "Cloudflare regions (location hints) to create the generator shards in, shard i in locations[i mod n]; each region's figures are given beside the whole",
  );

/** One load zone's share of a run: its shards' counts and latency, adding up to the run's. */
export const LocationFiguresSchema = z.object({
  location: LocationSchema,
  shards: z.number().int().describe("Generator shards created with this location hint"),
  sent: z.number().int().describe("Orders answered, from this location's shards"),
  accepted: z.number().int(),
  rejected: z.number().int(),
  errors: z.number().int(),
  dropped: z.number().int(),
  latency_p50_ms: z.number().describe("Median latency from the scheduled time, this location's orders"),
  latency_p99_ms: z.number().describe("99th percentile of the same; a lower bound when the location dropped orders"),
  service_p99_ms: z.number(),
});
export type LocationFigures = z.infer<typeof LocationFiguresSchema>;
