import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../../../scripts/chromium.cjs';

/**
 * The console's browser tests and its screenshots (scripts/console-screenshots.ts) drive a
 * Chromium through playwright-core, which downloads none of its own: CHROMIUM_PATH, else Debian's
 * on PATH, else the one the npm package @sparticuz/chromium carries (scripts/chromium.cjs).
 *
 * Headless, without the sandbox (tests run as root) or a GPU, in a fresh profile (Playwright
 * makes one per launch), and with none of Chromium's own traffic to Google's services: on a
 * closed network those connections fail, and they would only slow the page under test.
 */
export async function launchChromium(): Promise<Browser> {
  const { executablePath, env } = await findChromium();
  return chromium.launch({
    executablePath,
    env: { ...process.env, ...env },
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
