// Headless Chromium from Debian's packages (scripts/setup-tools.sh installs it), driven by playwright-core,
// which never downloads a browser of its own.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.TFGATE_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium was not found at ${CHROMIUM}: run bash scripts/setup-tools.sh chromium (Debian's chromium package), or set TFGATE_CHROMIUM`,
    );
  }
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Signs in through the form, by keyboard: focus the labelled field, type the key, press Enter. */
export async function signInWithBrowser(page: Page, baseUrl: string, apiKey: string): Promise<void> {
  await page.goto(`${baseUrl}/ui/`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByLabel('API key').press('Enter');
  await page.waitForURL(`${baseUrl}/ui/packages`);
}
