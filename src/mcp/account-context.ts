import type { BatchRecord } from "../account/batch-history";
import type { Config } from "../config";
import type { SyntheticTraffic } from "../synth/synthetic-traffic";

/**
 * Everything a tool handler may use, resolved before any tool runs: the account
 * and operator come from the bearer token, never from tool arguments.
 */
export interface AccountToolContext {
  readonly account: string;
  readonly operator: string;
  readonly config: Config;
  readonly synthetic: SyntheticTraffic;
  readonly batchHistory: () => BatchRecord[];
}
