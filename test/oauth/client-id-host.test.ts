import { describe, expect, it } from "vitest";
import { refusedClientId, refusedHost } from "../../src/oauth/client-id-host";

// Which Client ID Metadata Document URLs may be fetched, by their text alone.

describe("refused before any fetch", () => {
  it.each([
    ["https://127.0.0.1:18999/client.json", "127.0.0.1 is not a public address"],
    ["https://127.0.0.1./client.json", "127.0.0.1 is not a public address"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254 is not a public address"],
    ["https://10.1.2.3/c", "10.1.2.3 is not a public address"],
    ["https://172.20.0.1/c", "172.20.0.1 is not a public address"],
    ["https://192.168.1.1/c", "192.168.1.1 is not a public address"],
    ["https://100.64.0.1/c", "100.64.0.1 is not a public address"],
    ["https://0.0.0.0/c", "0.0.0.0 is not a public address"],
    ["https://224.0.0.1/c", "224.0.0.1 is not a public address"],
    ["https://255.255.255.255/c", "255.255.255.255 is not a public address"],
    ["https://[::1]/c", "[::1] is not a public address"],
    ["https://[::]/c", "[::] is not a public address"],
    ["https://[fd12:3456::1]/c", "[fd12:3456::1] is not a public address"],
    ["https://[fe80::1]/c", "[fe80::1] is not a public address"],
    ["https://[::ffff:127.0.0.1]/c", "[::ffff:7f00:1] is not a public address"],
    ["https://[::ffff:10.0.0.1]/c", "[::ffff:a00:1] is not a public address"],
    ["https://[64:ff9b::a9fe:a9fe]/c", "[64:ff9b::a9fe:a9fe] is not a public address"],
    ["https://[ff02::1]/c", "[ff02::1] is not a public address"],
    ["https://0x7f000001/c", "0x7f000001 is an IP address written as a number"],
    ["https://2130706433/c", "2130706433 is an IP address written as a number"],
    ["https://0177.0.0.1/c", "0177.0.0.1 is an IP address written as a number"],
    ["https://127.1/c", "127.1 is an IP address written as a number"],
    ["https://8.8.2056/c", "8.8.2056 is an IP address written as a number"],
    ["https://%31%32%37.0.0.1/c", "%31%32%37.0.0.1 is an IP address written as a number"],
    ["https://localhost/c", "localhost is a name only a local network resolves"],
    ["https://LOCALHOST:8443/c", "localhost is a name only a local network resolves"],
    ["https://localhost./c", "localhost is a name only a local network resolves"],
    ["https://app.localhost/c", "app.localhost is a name only a local network resolves"],
    ["https://printer.local/c", "printer.local is a name only a local network resolves"],
    ["https://metadata/c", "metadata is a name only a local network resolves"],
    ["https://user@127.0.0.1/c", "127.0.0.1 is not a public address"],
  ])("%s", (url, why) => {
    expect(refusedHost(url)).toBe(why);
  });

  it("the refusal of a client id says what it is and what to do", () => {
    expect(refusedClientId("https://localhost:3000/oauth/client.json")).toBe(
      "client_id https://localhost:3000/oauth/client.json cannot be fetched as a Client ID Metadata Document: localhost is a name only a local network resolves; such a document must be served from a public domain",
    );
  });
});

describe("fetched as before", () => {
  it.each([
    "https://claude.ai/oauth/claude-code-client-metadata",
    "https://client.example.com/meta.json",
    "https://8.8.8.8/c",
    "https://[2606:4700::1111]/c",
    "https://localhost.example.com/c",
  ])("%s", (url) => {
    expect(refusedHost(url)).toBeUndefined();
  });

  it("client ids that are not https URLs are not metadata documents, and pass untouched", () => {
    expect(refusedClientId("b7c1f0e2a9d4")).toBeUndefined();
    expect(refusedClientId("http://127.0.0.1/c")).toBeUndefined();
  });
});
