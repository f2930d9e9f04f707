// Screenshots of the dashboard's main pages for the README (docs/dashboard-*.png): a real tfgate service
// from source on loopback with sample data, photographed by Debian's Chromium through playwright-core.
// Usage: node scripts/screenshots.mjs   (after bash scripts/setup-tools.sh chromium and npm ci)
import '../test/helpers/ts-register.mjs';

const { startService } = await import('../test/helpers/service.ts');
const { seedDashboard } = await import('../test/helpers/dashboard-seed.ts');
const { launchChromium, signInWithBrowser } = await import('../test/helpers/browser.ts');

const out = new URL('../docs/', import.meta.url);
const svc = await startService();
const browser = await launchChromium();
try {
  const seeded = await seedDashboard(svc);
  const shoot = async (name, path, width = 1100) => {
    const context = await browser.newContext({ viewport: { width, height: 700 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await signInWithBrowser(page, svc.baseUrl, svc.apiKey);
    await page.goto(`${svc.baseUrl}/ui/${path}`);
    await page.screenshot({ path: new URL(`dashboard-${name}.png`, out).pathname, fullPage: true });
    await context.close();
    process.stdout.write(`docs/dashboard-${name}.png\n`);
  };
  await shoot('packages', 'packages');
  await shoot('design', `packages/${seeded.payments}`);
  await shoot('findings', `packages/${seeded.payments}/findings`);
  await shoot('hostile', `packages/${seeded.hostile}/findings`);
  await shoot('audit', `packages/${seeded.payments}/audit?limit=10`);
  await shoot('narrow', `packages/${seeded.payments}`, 375);
} finally {
  await browser.close();
  await svc.stop();
}
