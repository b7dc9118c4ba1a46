/**
 * Address input as a model might send it, and its normalization into the one
 * canonical form a proposal pins. Two spellings of the same address normalize
 * to the same value, so they are the same change.
 */
import { z } from "zod/v4";
import { fail, ok, type Result } from "../core/errors";
import { readableText } from "../core/free-text";
import { type Address, AddressSchema } from "./evidence";
import type { OrderRecord } from "./order-record";

export const AddressInputSchema = z.strictObject({
  recipient: readableText(z.string().max(200)).describe("Name on the parcel"),
  line1: readableText(z.string().max(200)).describe("Street and number"),
  line2: readableText(z.string().max(200)).nullish().describe("Apartment, suite or unit; omit when none"),
  city: readableText(z.string().max(200)),
  region: readableText(z.string().max(200)).describe("State or province code, e.g. CA or ON"),
  postal_code: readableText(z.string().max(40)),
  country: readableText(z.string().max(60)).describe("ISO 3166-1 alpha-2 code, e.g. US"),
});
export type AddressInput = z.infer<typeof AddressInputSchema>;

interface CountryRule {
  readonly postal: RegExp;
  readonly example: string;
  readonly format: (compact: string) => string;
  readonly regionCode: boolean;
}

const COUNTRIES: Record<string, CountryRule> = {
  US: {
    postal: /^\d{5}(\d{4})?$/,
    example: "12345 or 12345-6789",
    format: (p) => (p.length === 9 ? `${p.slice(0, 5)}-${p.slice(5)}` : p),
    regionCode: true,
  },
  CA: {
    postal: /^[A-Z]\d[A-Z]\d[A-Z]\d$/,
    example: "K1A 0B1",
    format: (p) => `${p.slice(0, 3)} ${p.slice(3)}`,
    regionCode: true,
  },
  GB: {
    postal: /^[A-Z]{1,2}\d[A-Z\d]?\d[A-Z]{2}$/,
    example: "SW1A 1AA",
    format: (p) => `${p.slice(0, -3)} ${p.slice(-3)}`,
    regionCode: false,
  },
  DE: { postal: /^\d{5}$/, example: "10115", format: (p) => p, regionCode: false },
  FR: { postal: /^\d{5}$/, example: "75001", format: (p) => p, regionCode: false },
  NL: {
    postal: /^\d{4}[A-Z]{2}$/,
    example: "1012 AB",
    format: (p) => `${p.slice(0, 4)} ${p.slice(4)}`,
    regionCode: false,
  },
  SE: { postal: /^\d{5}$/, example: "111 22", format: (p) => `${p.slice(0, 3)} ${p.slice(3)}`, regionCode: false },
  AU: { postal: /^\d{4}$/, example: "2000", format: (p) => p, regionCode: true },
};

export const SUPPORTED_COUNTRIES = Object.keys(COUNTRIES);

/** Length limits come from the stored schema, so input that passes here always fits it. */
const shape = AddressSchema.shape;
const LENGTH_LIMITS = {
  recipient: shape.recipient.maxLength ?? 120,
  line1: shape.line1.maxLength ?? 120,
  line2: shape.line2.unwrap().maxLength ?? 120,
  city: shape.city.maxLength ?? 80,
  region: shape.region.maxLength ?? 80,
  postal_code: shape.postal_code.maxLength ?? 16,
};

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * "PORTLAND" and "portland" become "Portland"; deliberate mixed case like
 * "McAllen" is kept. Words with digits ("3B", "12a") are unit or house
 * numbers and always read upper case, so "APT 3B" and "apt 3b" agree;
 * ordinals ("3rd", "21ST") read lower case.
 */
function tidyCase(text: string): string {
  const words = text.split(" ");
  const plainLetters = words
    .filter((word) => !/\d/.test(word))
    .join("")
    .replace(/[^\p{L}]/gu, "");
  const singleCase = plainLetters === plainLetters.toUpperCase() || plainLetters === plainLetters.toLowerCase();
  return words
    .map((word) => {
      if (/^\d+(st|nd|rd|th)$/i.test(word)) return word.toLowerCase();
      if (/\d/.test(word)) return word.toUpperCase();
      if (!singleCase) return word;
      return word.toLowerCase().replace(/(^|[-'])(\p{L})/gu, (_m, lead: string, ch: string) => lead + ch.toUpperCase());
    })
    .join(" ");
}

export function normalizeAddress(input: AddressInput): Result<Address> {
  const problems: string[] = [];
  const required = (field: keyof AddressInput, value: string | null | undefined): string => {
    const tidy = collapse(value ?? "");
    if (tidy === "") problems.push(`address.${field} is required`);
    return tidy;
  };
  const recipient = tidyCase(required("recipient", input.recipient));
  const line1 = tidyCase(required("line1", input.line1));
  const line2Raw = collapse(input.line2 ?? "");
  const city = tidyCase(required("city", input.city));
  const region = required("region", input.region).toUpperCase();
  const postalRaw = required("postal_code", input.postal_code).toUpperCase();
  const country = required("country", input.country).toUpperCase();

  // Own keys only: the country is input.
  const rule = Object.hasOwn(COUNTRIES, country) ? COUNTRIES[country] : undefined;
  let postal = postalRaw;
  if (country !== "" && !rule) {
    problems.push(`address.country ${country} is not supported; use one of ${SUPPORTED_COUNTRIES.join(", ")}`);
  }
  if (rule && postalRaw !== "") {
    const compact = postalRaw.replace(/[\s-]/g, "");
    if (rule.postal.test(compact)) postal = rule.format(compact);
    else
      problems.push(
        `address.postal_code ${postalRaw} is not a valid ${country} postal code (expected ${rule.example})`,
      );
  }
  if (rule?.regionCode && region !== "" && !/^[A-Z]{2,3}$/.test(region)) {
    problems.push(`address.region ${region} should be a 2-3 letter ${country} state or province code`);
  }
  const line2 = line2Raw === "" ? null : tidyCase(line2Raw);
  for (const [field, value] of Object.entries({ recipient, line1, line2, city, region, postal_code: postal })) {
    const limit = LENGTH_LIMITS[field as keyof typeof LENGTH_LIMITS];
    if (value !== null && value.length > limit) problems.push(`address.${field} is longer than ${limit} characters`);
  }
  if (problems.length > 0)
    return fail("validation_failed", `the address is not valid: ${problems.join("; ")}`, problems);
  // Parse, not trust: a normalized address that does not fit the stored shape is a bug here.
  return ok(AddressSchema.parse({ recipient, line1, line2, city, region, postal_code: postal, country }));
}

export function sameAddress(a: Address | null, b: Address): boolean {
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** Orders past these states can no longer be re-addressed. */
const ADDRESS_LOCKED_STATUSES = new Set(["shipped", "partially_shipped", "delivered", "cancelled"]);

/** Why this order's shipping address can no longer change, or undefined when it still can. */
export function addressLock(order: OrderRecord): string | undefined {
  if (ADDRESS_LOCKED_STATUSES.has(order.status))
    return `order ${order.order_id} is ${order.status}; its shipping address can no longer change`;
  if (order.evidence?.inventory.allocations.some((a) => a.state === "shipped")) {
    return `part of order ${order.order_id} has already shipped; its shipping address can no longer change`;
  }
  return undefined;
}
