import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core, which downloads no browser of its own: the
 * console's browser tests and its screenshots (scripts/console-screenshots.ts). `npm test`
 * installs the package when it is missing (scripts/ensure-test-tools.cjs); a machine without it
 * fails here, loudly.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless, without the sandbox (tests run as root) or a GPU, in a fresh profile (Playwright
 * makes one per launch), and with none of Chromium's own traffic to Google's services: on a
 * closed network those connections fail, and they would only slow the page under test.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium, as npm test does) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
