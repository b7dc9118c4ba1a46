/**
 * The words a switch variable takes, and what they mean. Without imports, so
 * the database's door can read DEMO_DATA the way the configuration does
 * without loading zod.
 */
export const SWITCH_WORDS = ["on", "off", "true", "false", "1", "0"] as const;

export function isOn(value: unknown): boolean {
  return value === "on" || value === "true" || value === "1";
}
