// The nested input fields of the tools whose inputs hold objects, pinned one by one by
// test/mcp/contract.test.ts: a field added anywhere in them must be added here on purpose.

/** Every field of start_traffic_run, nested ones included (array items and unions flattened). */
export const START_TRAFFIC_RUN_FIELDS = [
  "$.duration_seconds",
  "$.invalid_share",
  "$.invalid_share.channel_not_allowed",
  "$.invalid_share.out_of_stock",
  "$.invalid_share.price_mismatch",
  "$.invalid_share.total_mismatch",
  "$.invalid_share.unknown_customer",
  "$.invalid_share.unknown_sku",
  "$.invalid_share.unsupported_currency",
  "$.locations",
  "$.mode",
  "$.ramp_seconds",
  "$.rate_per_second",
  "$.seed",
  "$.stages",
  "$.stages.duration_seconds",
  "$.stages.rate_per_second",
  "$.start_rate",
  "$.thresholds",
  "$.thresholds.abort_on_fail",
  "$.thresholds.grace_seconds",
  "$.thresholds.metric",
  "$.thresholds.op",
  "$.thresholds.value",
];

/** Every field of start_capacity_search, nested ones included: the objective's thresholds are strict objects too. */
export const START_CAPACITY_SEARCH_FIELDS = [
  "$.highest_rate",
  "$.locations",
  "$.lowest_rate",
  "$.mode",
  "$.objective",
  "$.objective.abort_on_fail",
  "$.objective.grace_seconds",
  "$.objective.metric",
  "$.objective.op",
  "$.objective.value",
  "$.seed",
  "$.step_seconds",
  "$.tolerance",
  "$.warmup_seconds",
];
