import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * The browser of the console's browser tests and its screenshots (scripts/console-screenshots.ts),
 * driven by playwright-core, which downloads no browser of its own: CHROMIUM_PATH when set, else
 * Debian's Chromium when installed, else the Chromium that the npm package @sparticuz/chromium
 * ships inside itself (unpacked to the system's temporary directory on first use), so that `npm
 * test` needs no browser installed by hand.
 */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Headless, without a GPU, and with none of Chromium's own traffic to Google's services. */
const QUIET_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function browserToLaunch(): Promise<{ executablePath: string; args: string[] }> {
  const named = process.env.CHROMIUM_PATH ?? (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined);
  if (named !== undefined) {
    if (!existsSync(named)) throw new Error(`No Chromium at CHROMIUM_PATH=${named}`);
    return { executablePath: named, args: [] };
  }
  const { default: packaged } = await import('@sparticuz/chromium');
  // Its own flags: built for sandboxless single-process use, it needs them to start.
  return { executablePath: await packaged.executablePath(), args: packaged.args };
}

/** A fresh profile per launch (Playwright makes one), without the sandbox: tests run as root. */
export async function launchChromium(): Promise<Browser> {
  const { executablePath, args } = await browserToLaunch();
  return chromium.launch({ executablePath, headless: true, args: [...args, ...QUIET_ARGS] });
}
