import { describe, expect, it } from "vitest";
import { type AddressInput, normalizeAddress, SUPPORTED_COUNTRIES, sameAddress } from "../../src/orders/address";
import type { Address } from "../../src/orders/evidence";

// normalizeAddress: one canonical form per address, or every problem at once.

function input(overrides: Partial<AddressInput> = {}): AddressInput {
  return {
    recipient: "Maya Lindqvist",
    line1: "482 Alder Street",
    line2: "Apt 3B",
    city: "Portland",
    region: "OR",
    postal_code: "97205",
    country: "US",
    ...overrides,
  };
}

function normalized(overrides: Partial<AddressInput> = {}): Address {
  const result = normalizeAddress(input(overrides));
  if (!result.ok) throw new Error(`expected a valid address, got: ${result.error.message}`);
  return result.value;
}

function problems(overrides: Partial<AddressInput>): {
  message: string;
  errors: readonly string[] | undefined;
  code: string;
} {
  const result = normalizeAddress(input(overrides));
  if (result.ok) throw new Error(`expected an invalid address, got ${JSON.stringify(result.value)}`);
  return { message: result.error.message, errors: result.error.errors, code: result.error.code };
}

describe("tidying", () => {
  it("an already-canonical address comes back unchanged", () => {
    expect(normalized()).toEqual({
      recipient: "Maya Lindqvist",
      line1: "482 Alder Street",
      line2: "Apt 3B",
      city: "Portland",
      region: "OR",
      postal_code: "97205",
      country: "US",
    });
  });

  it("collapses runs of whitespace and trims every field", () => {
    expect(
      normalized({
        recipient: "  Maya \t Lindqvist ",
        line1: "482   Alder\nStreet",
        line2: "  Apt  3B ",
        city: " Portland  ",
        region: " or ",
        postal_code: " 97205 ",
        country: " us ",
      }),
    ).toEqual(normalized());
  });

  it('all-caps and all-lowercase words are title-cased: "PORTLAND" -> "Portland"', () => {
    const address = normalized({ recipient: "MAYA LINDQVIST", line1: "482 alder street", city: "PORTLAND" });
    expect(address.recipient).toBe("Maya Lindqvist");
    expect(address.line1).toBe("482 Alder Street");
    expect(address.city).toBe("Portland");
  });

  it("title-casing starts a word after a space, a hyphen or an apostrophe", () => {
    expect(normalized({ recipient: "MARY-JANE O'NEIL", city: "WINSTON-SALEM" })).toMatchObject({
      recipient: "Mary-Jane O'Neil",
      city: "Winston-Salem",
    });
  });

  it('deliberate mixed case is kept: "McAllen", "DeShawn"', () => {
    const address = normalized({ recipient: "DeShawn McArthur", city: "McAllen", region: "tx", postal_code: "78501" });
    expect(address.recipient).toBe("DeShawn McArthur");
    expect(address.city).toBe("McAllen");
  });

  it("country, region and postal code are uppercased", () => {
    const address = normalized({ country: "ca", region: "on", postal_code: "k1a 0b1", city: "Ottawa" });
    expect(address).toMatchObject({ country: "CA", region: "ON", postal_code: "K1A 0B1" });
  });

  it("an empty or blank line2 becomes null, and an omitted one too", () => {
    expect(normalized({ line2: "   " }).line2).toBeNull();
    expect(normalized({ line2: null }).line2).toBeNull();
    const { line2: _omitted, ...withoutLine2 } = input();
    const result = normalizeAddress(withoutLine2);
    expect(result.ok && result.value.line2).toBeNull();
  });

  it("line2 is tidied like the other lines", () => {
    expect(normalized({ line2: "SUITE   210" }).line2).toBe("Suite 210");
  });
});

describe("postal codes", () => {
  it.each([
    ["97205", "97205"],
    ["972051234", "97205-1234"],
    ["97205-1234", "97205-1234"],
    ["97205 1234", "97205-1234"],
  ])("US %j -> %j (ZIP and ZIP+4)", (postal, expected) => {
    expect(normalized({ postal_code: postal }).postal_code).toBe(expected);
  });

  it.each([
    ["k1a0b1", "K1A 0B1"],
    ["K1A 0B1", "K1A 0B1"],
    ["k1a-0b1", "K1A 0B1"],
  ])("CA %j -> %j", (postal, expected) => {
    expect(normalized({ country: "CA", region: "ON", city: "Ottawa", postal_code: postal }).postal_code).toBe(expected);
  });

  it.each([
    ["GB", "sw1a1aa", "SW1A 1AA"],
    ["NL", "1012ab", "1012 AB"],
    ["DE", "10115", "10115"],
  ])("%s %j -> %j", (country, postal, expected) => {
    expect(normalized({ country, region: "Region", postal_code: postal }).postal_code).toBe(expected);
  });

  it.each([
    ["US", "1234", "address.postal_code 1234 is not a valid US postal code (expected 12345 or 12345-6789)"],
    ["US", "97205-12", "address.postal_code 97205-12 is not a valid US postal code (expected 12345 or 12345-6789)"],
    ["CA", "123456", "address.postal_code 123456 is not a valid CA postal code (expected K1A 0B1)"],
  ])("%s %j is refused with the expected format", (country, postal, message) => {
    const result = problems({ country, region: "ON", postal_code: postal });
    expect(result.code).toBe("validation_failed");
    expect(result.errors).toEqual([message]);
    expect(result.message).toBe(`the address is not valid: ${message}`);
  });
});

describe("countries and regions", () => {
  it("an unsupported country names the supported ones", () => {
    expect(SUPPORTED_COUNTRIES).toEqual(["US", "CA", "GB", "DE", "FR", "NL", "SE", "AU"]);
    expect(problems({ country: "xx" }).errors).toEqual([
      "address.country XX is not supported; use one of US, CA, GB, DE, FR, NL, SE, AU",
    ]);
  });

  it("a country name instead of a code is unsupported", () => {
    expect(problems({ country: "USA" }).errors).toEqual([
      "address.country USA is not supported; use one of US, CA, GB, DE, FR, NL, SE, AU",
    ]);
  });

  it("a US region must be a 2-3 letter code", () => {
    expect(problems({ region: "Oregon" }).errors).toEqual([
      "address.region OREGON should be a 2-3 letter US state or province code",
    ]);
  });

  it("countries without region codes accept a region name", () => {
    expect(
      normalized({ country: "GB", region: "Greater London", postal_code: "SW1A 1AA", city: "London" }).region,
    ).toBe("GREATER LONDON");
  });
});

describe("required fields and limits", () => {
  it.each(["recipient", "line1", "city", "region", "postal_code", "country"] as const)(
    "%s is required (blank counts as missing)",
    (field) => {
      expect(problems({ [field]: "   " }).errors).toEqual([`address.${field} is required`]);
    },
  );

  it("lists every problem at once, in field order", () => {
    const result = problems({ recipient: "", line1: " ", city: "", region: "Oregon", postal_code: "ABC" });
    expect(result.errors).toEqual([
      "address.recipient is required",
      "address.line1 is required",
      "address.city is required",
      "address.postal_code ABC is not a valid US postal code (expected 12345 or 12345-6789)",
      "address.region OREGON should be a 2-3 letter US state or province code",
    ]);
    expect(result.message).toBe(`the address is not valid: ${result.errors?.join("; ")}`);
  });

  it("an unsupported country plus other problems: all of them", () => {
    expect(problems({ country: "ZZ", city: "", line1: "x".repeat(121) }).errors).toEqual([
      "address.city is required",
      "address.country ZZ is not supported; use one of US, CA, GB, DE, FR, NL, SE, AU",
      "address.line1 is longer than 120 characters",
    ]);
  });

  it("a line of exactly 120 characters is accepted, 121 is not", () => {
    expect(normalized({ line1: `1 ${"a".repeat(118)}` }).line1).toHaveLength(120);
    expect(problems({ line1: `1 ${"a".repeat(119)}` }).errors).toEqual(["address.line1 is longer than 120 characters"]);
  });
});

describe("sameAddress", () => {
  it("two spellings of one address normalize to the same address", () => {
    const a = normalized();
    const b = normalized({
      recipient: "maya   lindqvist",
      line1: "482 ALDER STREET",
      line2: " Apt  3B ",
      city: "portland",
      region: "or",
      country: "us",
    });
    expect(b).toEqual(a);
    expect(sameAddress(a, b)).toBe(true);
  });

  it("a different address, or no address on file, is not the same", () => {
    expect(sameAddress(normalized(), normalized({ line2: "Apt 4B" }))).toBe(false);
    expect(sameAddress(null, normalized())).toBe(false);
  });

  it('"APT 3B", "apt 3b" and "Apt 3B" normalize to the same line2: words with digits read upper case', () => {
    expect(normalized({ line2: "APT 3B" }).line2).toBe("Apt 3B");
    expect(normalized({ line2: "apt 3b" }).line2).toBe("Apt 3B");
    expect(normalized({ line2: "Apt 3b" }).line2).toBe("Apt 3B");
  });

  it("ordinals stay lower case", () => {
    expect(normalized({ line1: "221 WEST 3RD STREET" }).line1).toBe("221 West 3rd Street");
  });
});
