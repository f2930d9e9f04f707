// The dashboard in a real browser: headless Chromium (Debian's) driven by playwright-core. Sign in, approve
// a design, acknowledge a finding and see the gate pass, page through the audit log, a read-only key that
// cannot write, hostile values that never run, and accessibility: labels, keyboard, contrast, 375 px.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signInWithBrowser } from '../helpers/browser.js';
import { HOSTILE, HOSTILE_NAME, type Seeded, seedDashboard } from '../helpers/dashboard-seed.js';
import { api, CONFORMANCE, startService, type TestService } from '../helpers/service.js';

// In-page callbacks run in Chromium; the test project compiles without the DOM lib, so the few browser
// globals they use are declared loosely here.
// biome-ignore lint/suspicious/noExplicitAny: browser objects, only inside page.evaluate callbacks
type Dom = any;
declare const document: Dom;
declare function getComputedStyle(element: Dom): Dom;

let svc: TestService;
let browser: Browser;
let seeded: Seeded;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService(), launchChromium()]);
  seeded = await seedDashboard(svc);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** A fresh browser profile, signed in with `key`; every dialog and page error is recorded. */
async function signedIn(key: string, options: { bypassCSP?: boolean; width?: number } = {}) {
  const context = await browser.newContext({
    bypassCSP: options.bypassCSP ?? false,
    viewport: { width: options.width ?? 1200, height: 900 },
  });
  const page = await context.newPage();
  const events: string[] = [];
  page.on('dialog', (d) => {
    events.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => events.push(`pageerror: ${e.message}`));
  await signInWithBrowser(page, svc.baseUrl, key);
  return { context, page, events };
}

const ui = (path: string) => `${svc.baseUrl}/ui/${path}`;

describe('the dashboard in Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await signedIn(svc.apiKey));
  });
  afterAll(() => context?.close());

  it('signs in and lists the packages with their status', async () => {
    const row = page.getByRole('row', { name: /payments/ });
    await expect(row.getByText('change awaiting approval').isVisible()).resolves.toBe(true);
    await expect(row.getByText('1 open').isVisible()).resolves.toBe(true);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'tfgate_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ui' });
  });

  it('approves a design after showing what it proposes against the approved one', async () => {
    await page.getByRole('link', { name: 'payments', exact: true }).click();
    // As a screen reader reads it (the +/− signs are hidden from it; the words are not).
    const items = (await page.locator('ul.diff li').allTextContents()).map((t) =>
      t.replace(/\s+/g, ' ').trim(),
    );
    expect(items).toEqual([
      '+ added: kind queue',
      '~ changed: capability ledger',
      '+ added: depends on aws_sqs_queue.extra',
    ]);
    await page.getByRole('button', { name: /^Approve revision/ }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The design is approved.');
    await expect(page.getByText('nothing is proposed').isVisible()).resolves.toBe(true);
    const stored = await api<{ approved: boolean }>(svc, 'GET', `${CONFORMANCE}/packages/${seeded.payments}`);
    expect(stored.body.approved).toBe(true);
  });

  it('acknowledges a finding with a reason, and the gate passes', async () => {
    // The approved design now sanctions the queue; go back to one that does not, so the finding is open.
    await api(svc, 'PUT', `${CONFORMANCE}/packages/hostile-free`, {
      body: 'package_id: hostile-free\nsanctioned_kinds: [relational_database]\ncatalog:\n  aws_db_instance: relational_database\n  aws_sqs_queue: queue\n',
      headers: { 'Content-Type': 'application/yaml' },
    });
    await api(svc, 'POST', `${CONFORMANCE}/packages/hostile-free/approve`);
    await api(svc, 'PUT', `${CONFORMANCE}/packages/hostile-free/observed-state`, {
      body: JSON.stringify({
        format_version: '1.0',
        values: {
          root_module: {
            resources: [
              {
                address: 'aws_sqs_queue.jobs',
                mode: 'managed',
                type: 'aws_sqs_queue',
                name: 'jobs',
                values: {},
              },
            ],
          },
        },
      }),
    });
    await api(svc, 'POST', `${CONFORMANCE}/packages/hostile-free/drift-checks`);
    const blocked = await api(svc, 'POST', `${CONFORMANCE}/packages/hostile-free/gate?fail_status=true`);
    expect(blocked.status).toBe(409);

    await page.goto(ui('packages/hostile-free'));
    await page.getByRole('link', { name: 'Drift findings' }).click();
    const reason = page.getByLabel(/Reason to accept/);
    // Required: an empty reason is not sent.
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    expect(page.url()).toBe(ui('packages/hostile-free/findings'));
    await reason.fill('queue retires with the batch jobs; PAY-142');
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The finding is acknowledged.');
    await expect(
      page.getByText('Reason: queue retires with the batch jobs; PAY-142').isVisible(),
    ).resolves.toBe(true);

    const gate = await api<{ decision: string }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/hostile-free/gate?fail_status=true`,
    );
    expect(gate.status).toBe(200);
    expect(gate.body.decision).toBe('pass');
    await page.getByRole('link', { name: 'Evaluations and gate decisions' }).click();
    const decisions = page.locator('td[data-label="Decision"]');
    await expect(decisions.allInnerTexts()).resolves.toEqual(['block', 'pass']);
  });

  it('pages through the audit log, with an event filter', async () => {
    await page.goto(ui(`packages/${seeded.payments}/audit`));
    await page.getByLabel('Per page').selectOption('10');
    await page.getByRole('button', { name: 'Filter' }).click();
    const seen: number[] = [];
    for (let pages = 0; pages < 10; pages++) {
      const ids = (await page.locator('td[data-label="#"]').allInnerTexts()).map(Number);
      seen.push(...ids);
      const next = page.getByRole('link', { name: 'Next page' });
      if ((await next.count()) === 0) break;
      await next.click();
    }
    expect(seen.length).toBeGreaterThan(10);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
    await expect(page.getByText('End of the log').isVisible()).resolves.toBe(true);
    await page.getByLabel('Event').selectOption('package_approved');
    await page.getByRole('button', { name: 'Filter' }).click();
    const events = await page.locator('td[data-label="Event"]').allInnerTexts();
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events)).toEqual(new Set(['package_approved']));
  });

  it('every form field has a label, and focus is visible when moving by keyboard', async () => {
    for (const path of [
      'packages',
      `packages/${seeded.hostile}/findings`,
      `packages/${seeded.payments}/audit`,
      'keys',
    ]) {
      await page.goto(ui(path));
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
          .filter((el) => {
            const labels = el.labels;
            const named =
              el.getAttribute('aria-label') || (el.tagName === 'BUTTON' && el.textContent?.trim());
            return !named && (!labels || labels.length === 0);
          })
          .map((el) => el.outerHTML),
      );
      expect(unlabelled, path).toEqual([]);
    }
    await page.goto(ui('packages'));
    await page.keyboard.press('Tab');
    const first = await page.evaluate(() => {
      const el = document.activeElement;
      const style = getComputedStyle(el);
      return {
        text: el.textContent,
        outline: style.outlineStyle,
        width: style.outlineWidth,
        left: el.getBoundingClientRect().left,
      };
    });
    expect(first).toMatchObject({ text: 'Skip to content', outline: 'solid', width: '3px' });
    expect(first.left).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const afterSkip = await page.evaluate(() => {
      const el = document.activeElement;
      return { inMain: el.closest('main') !== null, outline: getComputedStyle(el).outlineStyle };
    });
    expect(afterSkip).toEqual({ inMain: true, outline: 'solid' });
  });

  it('text meets WCAG AA contrast (4.5:1) on every page', async () => {
    for (const path of [
      'packages',
      `packages/${seeded.payments}`,
      `packages/${seeded.hostile}/findings`,
      `packages/${seeded.payments}/decisions`,
      'keys',
    ]) {
      await page.goto(ui(path));
      const failures = await page.evaluate(() => {
        const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
        const lum = ([r, g, b]: number[]) => {
          const f = (v: number) =>
            v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4;
          return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
        };
        const background = (el: Dom): number[] => {
          for (let e = el; e; e = e.parentElement) {
            const c = rgb(getComputedStyle(e).backgroundColor);
            if (c.length === 3 || (c.length === 4 && c[3]! > 0.9)) return c.slice(0, 3);
          }
          return [255, 255, 255];
        };
        const out: string[] = [];
        for (const el of document.querySelectorAll('body *')) {
          const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim() !== '');
          const box = el.getBoundingClientRect();
          if (!own || box.width <= 1 || box.height <= 1 || getComputedStyle(el).visibility === 'hidden')
            continue;
          const fg = lum(rgb(getComputedStyle(el).color));
          const bg = lum(background(el));
          const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
          if (ratio < 4.5)
            out.push(`${ratio.toFixed(2)} ${el.tagName} ${el.textContent!.trim().slice(0, 40)}`);
        }
        return out;
      });
      expect(failures, path).toEqual([]);
    }
  });
});

describe('hostile values, with the Content-Security-Policy switched off', () => {
  it('render as text everywhere and never run: escaping alone holds', async () => {
    // bypassCSP: the policy would block an injected script anyway; this proves the escaping does too.
    const { context, page, events } = await signedIn(svc.apiKey, { bypassCSP: true });
    try {
      for (const path of [
        'packages',
        `packages/${seeded.hostile}`,
        `packages/${seeded.hostile}/findings`,
        `packages/${seeded.hostile}/audit`,
        'keys',
      ]) {
        const response = await page.goto(ui(path));
        const source = await response!.text();
        expect(source, path).not.toMatch(/<script|<img/i);
        const dom = await page.evaluate(() => ({
          pwned: (globalThis as { __pwned?: number }).__pwned,
          scripts: document.querySelectorAll('script').length,
          images: document.querySelectorAll('img').length,
          handlers: [...document.querySelectorAll('*')].filter((e) =>
            [...e.attributes].some((a) => a.name.startsWith('on')),
          ).length,
          hrefs: [...document.querySelectorAll('a[href], form[action]')]
            .map((e) => e.getAttribute('href') ?? e.getAttribute('action')!)
            .filter((h) => !h.startsWith('/ui/') && !h.startsWith('#')),
        }));
        expect(dom, path).toEqual({ pwned: undefined, scripts: 0, images: 0, handlers: 0, hrefs: [] });
      }
      // The values are shown, as text.
      await page.goto(ui(`packages/${seeded.hostile}/findings`));
      await expect(page.getByText(`Reason: ${HOSTILE}`).isVisible()).resolves.toBe(true);
      await expect(page.locator('code', { hasText: HOSTILE_NAME }).first().isVisible()).resolves.toBe(true);
      await page.goto(ui('keys'));
      await expect(page.getByRole('cell', { name: HOSTILE, exact: true }).isVisible()).resolves.toBe(true);
      expect(events).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('with the policy on, an injected inline script is refused by the browser', async () => {
    const { context, page } = await signedIn(svc.apiKey);
    try {
      await page.goto(ui('packages'));
      // Only as proof that the header is the one Chromium enforces: a script element added at run time.
      const ran = await page.evaluate(() => {
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.body.append(s);
        return (globalThis as { __inline?: number }).__inline;
      });
      expect(ran).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});

describe('a read-only key', () => {
  it('sees no write control, and the server refuses its writes anyway', async () => {
    const { context, page } = await signedIn(seeded.readerKey);
    try {
      await expect(page.getByText('read-only').isVisible()).resolves.toBe(true);
      await expect(page.getByRole('link', { name: 'API keys' }).count()).resolves.toBe(0);
      await page.goto(ui(`packages/${seeded.hostile}/findings`));
      await expect(page.getByRole('button', { name: 'Acknowledge' }).count()).resolves.toBe(0);
      await expect(page.locator('textarea').count()).resolves.toBe(0);
      // The sign-out form carries this session's CSRF token: a well-formed write, refused by scope.
      const csrf = (await page.locator('input[name=csrf]').first().getAttribute('value'))!;
      const findings = await api<{ findings: Array<{ id: string }> }>(
        svc,
        'GET',
        `${CONFORMANCE}/packages/${seeded.hostile}/findings?status=open`,
      );
      const id = findings.body.findings[0]!.id;
      const refused = await page.request.post(ui(`packages/${seeded.hostile}/findings/${id}/acknowledge`), {
        form: { csrf, reason: 'I should not be able to do this' },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('compliance:write');
      const still = await api<{ findings: Array<{ id: string }> }>(
        svc,
        'GET',
        `${CONFORMANCE}/packages/${seeded.hostile}/findings?status=open`,
      );
      expect(still.body.findings.map((f) => f.id)).toContain(id);
      expect((await page.request.get(ui('keys'), { maxRedirects: 0 })).status()).toBe(403);
    } finally {
      await context.close();
    }
  });
});

describe('a narrow screen (375 px)', () => {
  it('every page fits the width: nothing scrolls sideways', async () => {
    const { context, page } = await signedIn(svc.apiKey, { width: 375 });
    try {
      for (const path of [
        'packages',
        `packages/${seeded.payments}`,
        `packages/${seeded.hostile}/findings`,
        `packages/${seeded.payments}/decisions`,
        `packages/${seeded.payments}/audit`,
        'keys',
      ]) {
        await page.goto(ui(path));
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, path).toBeLessThanOrEqual(375);
      }
    } finally {
      await context.close();
    }
  });
});
