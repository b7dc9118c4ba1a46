// Whether `npm run dev` starts with INTAKE_FAULTS on, and the banner line that
// says so: a run against a built-in order API that fails on purpose measures
// the faults, and whoever reads its figures should know. Plain JavaScript, as
// scripts/dev.mjs is.

const NAME = "INTAKE_FAULTS";

/** The value in `NAME = "value"` lines (.dev.vars, wrangler.toml's [vars]), or undefined. */
function assigned(text) {
  const match = text.match(new RegExp(`^\\s*${NAME}\\s*=\\s*(["']?)(.*?)\\1\\s*$`, "m"));
  return match ? match[2] : undefined;
}

/**
 * INTAKE_FAULTS as the dev server will see it. A `--var INTAKE_FAULTS:…`
 * given to `npm run dev` wins over .dev.vars, which wins over wrangler.toml
 * (as wrangler 4.156.2 does it; docs/configuration.md). Empty means off.
 * @param {readonly string[]} args the arguments given to `npm run dev`
 * @param {string} devVars the text of .dev.vars ("" without one)
 * @param {string} wranglerToml the text of wrangler.toml
 * @returns {string}
 */
export function intakeFaults(args, devVars, wranglerToml) {
  const given = args
    .map((arg) => String(arg).replace(/^--var=/, ""))
    .filter((arg) => arg.startsWith(`${NAME}:`))
    .at(-1);
  if (given !== undefined) return given.slice(NAME.length + 1).trim();
  return (assigned(devVars) ?? assigned(wranglerToml) ?? "").trim();
}

/**
 * The banner's line when faults are on; none when they are off.
 * @param {string} faults
 * @returns {string[]}
 */
export function faultLines(faults) {
  if (faults === "") return [];
  return [
    `  Faults     INTAKE_FAULTS is on (${faults}): the built-in order API is slow or fails on purpose, so runs and`,
    "             searches against it measure the faults (docs/order-api.md, Fault injection). Start without it to measure the API.",
  ];
}
