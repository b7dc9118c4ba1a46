/**
 * Hosts a Client ID Metadata Document may not be fetched from. A CIMD client
 * names a URL as its client_id and the OAuth library fetches it, so a client
 * id is an outbound request anyone can ask for. On Cloudflare the
 * global_fetch_strictly_public flag keeps such fetches on the public
 * internet; under wrangler dev nothing does, and a client id such as
 * https://127.0.0.1:5432/x reaches this machine. So these are refused, by the
 * text of the URL, before anything is fetched, wherever the Worker runs:
 *
 * - IP literals that are not public: loopback, private, link-local,
 *   unique-local, shared, multicast, documentation and reserved ranges,
 *   and IPv6 forms that embed such an IPv4 address;
 * - an IPv4 address written any other way than a.b.c.d (2130706433,
 *   0x7f000001, 0177.0.0.1, 127.1, percent-encoded digits), which URL
 *   parsing turns into an address;
 * - names only a local resolver answers: one label (`metadata`), localhost
 *   and *.localhost, *.local, *.internal, *.home.arpa.
 *
 * A public name that resolves to a private address is not caught here: that
 * takes the platform's guard, which is why the flag stays on as well.
 */

/** [first address, prefix length] of every IPv4 range that is not public. */
const NON_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"];

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function isPublicV4(address: string): boolean {
  const n = v4Number(address);
  return !NON_PUBLIC_V4.some(
    ([first, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(v4Number(first) / 2 ** (32 - bits)),
  );
}

/** The eight 16-bit groups of an IPv6 address as URL parsing writes it (no brackets, hex groups, at most one "::"). */
function v6Groups(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function isPublicV6(address: string): boolean {
  const g = v6Groups(address);
  const [a = 0, b = 0] = g;
  const embeddedV4 = () => `${(g[6] ?? 0) >> 8}.${(g[6] ?? 0) & 255}.${(g[7] ?? 0) >> 8}.${(g[7] ?? 0) & 255}`;
  const zeroUntil = (n: number) => g.slice(0, n).every((group) => group === 0);
  if (zeroUntil(6)) return false; // ::, ::1 and the IPv4-compatible ::a.b.c.d
  if (zeroUntil(5) && g[5] === 0xffff) return isPublicV4(embeddedV4()); // IPv4-mapped
  if (a === 0x64 && b === 0xff9b && g.slice(2, 6).every((group) => group === 0)) return isPublicV4(embeddedV4()); // NAT64
  if ((a & 0xfe00) === 0xfc00) return false; // unique-local fc00::/7
  if ((a & 0xffc0) === 0xfe80 || (a & 0xffc0) === 0xfec0) return false; // link-local, old site-local
  if ((a & 0xff00) === 0xff00) return false; // multicast
  if (a === 0x2001 && b === 0x0db8) return false; // documentation
  if (a === 0x0100 && g.slice(1, 4).every((group) => group === 0)) return false; // discard-only
  return true;
}

/** The host exactly as written in the URL text, before URL parsing rewrites it. */
function writtenHost(url: string): string {
  const afterScheme = url.slice(url.indexOf("://") + 3);
  const authority = afterScheme.slice(0, afterScheme.search(/[/?#]|$/));
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:[^:]*$/, "");
}

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/** Why `url` may not be fetched as a client's metadata (or its keys), or undefined when its host is a public one. */
export function refusedHost(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not a URL at all: the library refuses it without fetching
  }
  const host = parsed.hostname.replace(/\.+$/, "");
  const written = writtenHost(url).toLowerCase().replace(/\.+$/, "");
  if (IPV4.test(host)) {
    if (written !== host) return `${written} is an IP address written as a number`;
    return isPublicV4(host) ? undefined : `${host} is not a public address`;
  }
  if (host.startsWith("[")) return isPublicV6(host.slice(1, -1)) ? undefined : `${host} is not a public address`;
  if (host === "localhost" || !host.includes(".") || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return `${host} is a name only a local network resolves`;
  return undefined;
}

/** A client id that is a metadata URL (https, with a path) on a host that may not be fetched: why, for the refusal. */
export function refusedClientId(clientId: string): string | undefined {
  if (!/^https:\/\//i.test(clientId)) return undefined;
  const why = refusedHost(clientId);
  return (
    why &&
    `client_id ${clientId} cannot be fetched as a Client ID Metadata Document: ${why}; such a document must be served from a public domain`
  );
}
