import type { Config } from "../config/config";
import type { ShardSpec } from "../runs/shard-state";
import { orderApiTarget, TARGET_TIMEOUT_MS, type OrderApiTarget } from "../synth/order-api-target";

/** Where a shard sends its orders: the configured target, as seen by the operator who started the run. */
export function shardTarget(env: Env, _config: Config, spec: ShardSpec): OrderApiTarget {
  return orderApiTarget(env.ORDER_API, spec.account, TARGET_TIMEOUT_MS, spec.actor);
}
