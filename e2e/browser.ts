import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's chromium (installed by .ci/run when missing), or CHROMIUM_PATH. */
export function chromiumPath(): string {
  const candidates = [
    process.env.CHROMIUM_PATH,
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
  ];
  const found = candidates.find(
    (candidate): candidate is string => candidate !== undefined && candidate !== "" && existsSync(candidate),
  );
  if (!found)
    throw new Error(
      "no Chromium found; install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH",
    );
  return found;
}

/** Headless Chromium with a fresh profile (playwright makes one per launch). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // The machine's network is closed: keep Chromium from phoning home at start.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
