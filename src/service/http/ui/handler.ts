// The dashboard under /ui/: server-rendered pages over the same core functions and the same access checks
// (core/auth.ts `authorize`) as the API. A session cookie stands for the API key it was signed in with;
// every form carries the session's CSRF token; every answer carries a strict Content-Security-Policy.
import type { IncomingMessage } from 'node:http';
import { compareDesigns } from '../../../design/diff.js';
import { type Design, designSchema } from '../../../design/index.js';
import * as admin from '../../core/admin.js';
import { type AccessRule, authorize } from '../../core/auth.js';
import type { ServiceContext } from '../../core/context.js';
import { designAtRevision } from '../../core/design-revisions.js';
import { ServiceError } from '../../core/errors.js';
import * as packages from '../../core/packages.js';
import { refuseUnstorableText } from '../../core/storable-text.js';
import { resumeSession, signOut, type UiSession } from '../../core/ui-sessions.js';
import { type PackageRecord, StoreError } from '../../store/index.js';
import type { FailureThrottle } from '../rate-limit.js';
import { decodePathParameter, parseQuery, type Reply } from '../router.js';
import { accountNameSchema, acknowledgeRequestSchema, createApiKeySchema } from '../schemas.js';
import { storeErrorReply } from '../store-errors.js';
import * as pages from './pages.js';
import { page, redirect, SECURITY_HEADERS } from './reply.js';
import { cookie, cookies, formWithCsrf, login, loginForm, SESSION_COOKIE } from './sign-in.js';
import { STYLESHEET } from './style.js';

export const isUiPath = (pathname: string): boolean => pathname === '/ui' || pathname.startsWith('/ui/');

const READ: AccessRule = { scope: 'compliance:read', pkg: 'existing' };
const WRITE: AccessRule = { scope: 'compliance:write', pkg: 'existing' };
const ADMIN: AccessRule = { scope: 'admin' };

const NOTICES: Record<string, string> = {
  approved: 'The design is approved.',
  acknowledged: 'The finding is acknowledged.',
  revoked: 'The key is revoked.',
};

function pathParameter(name: string, raw: string): string {
  const value = decodePathParameter(name, raw);
  if (value instanceof ServiceError) throw value;
  return value;
}

/** The package in the session's account, through the API's own checks (scope, then 404 across accounts). */
async function packageFor(
  ctx: ServiceContext,
  session: UiSession,
  rawId: string,
  rule: AccessRule,
): Promise<PackageRecord> {
  const packageId = pathParameter('package_id', rawId);
  const pkg = await ctx.store.packages.get(session.principal.account, packageId);
  return authorize({ principal: session.principal, pkg }, rule, packageId).pkg!;
}

async function comparison(ctx: ServiceContext, pkg: PackageRecord): Promise<pages.DesignComparison> {
  if (pkg.approved || pkg.approvedRevision === null) return { changes: null };
  try {
    const approved = await designAtRevision(ctx, pkg, 'approved');
    const design = designSchema.safeParse(approved.design);
    if (!design.success)
      return { changes: null, unavailable: 'The approved design cannot be read by this version.' };
    return { changes: compareDesigns(design.data, pkg.design as Design) };
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'revision_not_found')
      return { changes: null, unavailable: error.message };
    throw error;
  }
}

type Handler = (input: {
  ctx: ServiceContext;
  req: IncomingMessage;
  url: URL;
  session: UiSession;
  params: string[];
}) => Promise<Reply>;

const notice = (url: URL) => NOTICES[url.searchParams.get('done') ?? ''];
/** Query parameters a page takes besides `done` (the notice after a redirect). */
const pageQuery = <T extends Parameters<typeof parseQuery>[0]>(table: T, url: URL) => {
  const search = new URLSearchParams(url.searchParams);
  search.delete('done');
  return parseQuery({ ...table }, search);
};

const PAGE_ROUTES: Array<{ method: 'GET' | 'POST'; pattern: RegExp; handler: Handler }> = [
  {
    method: 'GET',
    pattern: /^\/ui\/packages$/,
    handler: async ({ ctx, session, url }) => {
      pageQuery({}, url);
      return page(
        200,
        pages.packagesPage(session, await ctx.store.packageOverview.list(session.principal.account)),
      );
    },
  },
  {
    method: 'GET',
    pattern: /^\/ui\/packages\/([^/]+)$/,
    handler: async ({ ctx, session, url, params }) => {
      pageQuery({}, url);
      const pkg = await packageFor(ctx, session, params[0]!, READ);
      return page(
        200,
        pages.designPage(session, packages.packageView(pkg), await comparison(ctx, pkg), notice(url)),
      );
    },
  },
  {
    method: 'POST',
    pattern: /^\/ui\/packages\/([^/]+)\/approve$/,
    handler: async ({ ctx, session, params, req }) => {
      const form = await formWithCsrf(req, session);
      const pkg = await packageFor(ctx, session, params[0]!, WRITE);
      // The revision the page showed: a design changed since is refused (409), never approved unseen.
      await packages.approvePackage(ctx, session.principal, pkg, form.get('revision') ?? pkg.revision);
      return redirect(`/ui/packages/${encodeURIComponent(pkg.packageId)}?done=approved`);
    },
  },
  {
    method: 'GET',
    pattern: /^\/ui\/packages\/([^/]+)\/findings$/,
    handler: async ({ ctx, session, url, params }) => {
      const { status } = pageQuery(
        { status: { description: 'status', values: ['open', 'acknowledged', 'resolved'] as const } },
        url,
      );
      const pkg = await packageFor(ctx, session, params[0]!, READ);
      const findingStatus = status as 'open' | 'acknowledged' | 'resolved' | undefined;
      const findings = await packages.listFindings(ctx, pkg, findingStatus);
      return page(
        200,
        pages.findingsPage(session, packages.packageView(pkg), findings, findingStatus, notice(url)),
      );
    },
  },
  {
    method: 'POST',
    pattern: /^\/ui\/packages\/([^/]+)\/findings\/([^/]+)\/acknowledge$/,
    handler: async ({ ctx, session, params, req }) => {
      const form = await formWithCsrf(req, session);
      const pkg = await packageFor(ctx, session, params[0]!, WRITE);
      const findingId = pathParameter('finding_id', params[1]!);
      // The API's own request schema: the same rules for the reason (required, not blank) and the expiry.
      // The form's date field is a UTC day: the acknowledgement expires at 00:00 UTC that day.
      const expiresOn = form.get('expires_on')?.trim() ?? '';
      const parsed = acknowledgeRequestSchema.safeParse({
        reason: form.get('reason') ?? '',
        ...(expiresOn === '' ? {} : { expires_at: `${expiresOn}T00:00:00Z` }),
      });
      if (!parsed.success) {
        const badExpiry = parsed.error.issues.some((issue) => issue.path[0] === 'expires_at');
        throw new ServiceError(
          400,
          'invalid_parameter',
          badExpiry
            ? 'the expiry must be a date (YYYY-MM-DD, UTC) in the future, or left empty'
            : 'a reason is required: say why this finding may be accepted',
        );
      }
      refuseUnstorableText(parsed.data, 'invalid_parameter', 'the reason');
      await packages.acknowledgeFinding(ctx, session.principal, pkg, findingId, parsed.data);
      return redirect(`/ui/packages/${encodeURIComponent(pkg.packageId)}/findings?done=acknowledged`);
    },
  },
  {
    method: 'GET',
    pattern: /^\/ui\/packages\/([^/]+)\/decisions$/,
    handler: async ({ ctx, session, url, params }) => {
      const { after } = pageQuery(
        { after: { description: 'after', integer: { min: 0, max: Number.MAX_SAFE_INTEGER } } },
        url,
      );
      const pkg = await packageFor(ctx, session, params[0]!, READ);
      const limit = 25;
      const entries = await ctx.store.audit.list(pkg, {
        after,
        limit,
        events: ['gate_decided', 'plan_evaluated'],
      });
      const base = `/ui/packages/${encodeURIComponent(pkg.packageId)}/decisions`;
      const next = entries.length === limit ? `${base}?after=${entries[entries.length - 1]!.id}` : undefined;
      return page(
        200,
        pages.decisionsPage(session, packages.packageView(pkg), entries, next, after ? base : undefined),
      );
    },
  },
  {
    method: 'GET',
    pattern: /^\/ui\/packages\/([^/]+)\/audit$/,
    handler: async ({ ctx, session, url, params }) => {
      const query = pageQuery(
        {
          event: { description: 'event', values: ['', ...pages.AUDIT_EVENTS] as const },
          limit: { description: 'limit', values: ['10', '25', '50', '100'] as const, default: '25' },
          after: { description: 'after', integer: { min: 0, max: Number.MAX_SAFE_INTEGER } },
        },
        url,
      );
      const pkg = await packageFor(ctx, session, params[0]!, READ);
      const limit = Number(query.limit);
      const event = query.event || undefined;
      const entries = await packages.listAudit(ctx, pkg, {
        after: query.after,
        limit,
        ...(event ? { events: [event] } : {}),
      });
      const link = (after?: string) =>
        `/ui/packages/${encodeURIComponent(pkg.packageId)}/audit?${new URLSearchParams({ ...(event ? { event } : {}), limit: String(limit), ...(after ? { after } : {}) })}`;
      const next = entries.length === limit ? link(entries[entries.length - 1]!.id) : undefined;
      return page(
        200,
        pages.auditPage(
          session,
          packages.packageView(pkg),
          entries,
          { event, limit: String(limit) },
          next,
          query.after ? link() : undefined,
        ),
      );
    },
  },
  {
    method: 'GET',
    pattern: /^\/ui\/keys$/,
    handler: async ({ ctx, session, url }) => {
      authorize({ principal: session.principal, pkg: null }, ADMIN, undefined);
      pageQuery({ account: { description: 'account' } }, url);
      const listing = await admin.listApiKeys(ctx, session.principal, accountOf(url, session));
      return page(200, pages.keysPage(session, listing, undefined, notice(url)));
    },
  },
  {
    method: 'POST',
    pattern: /^\/ui\/keys$/,
    handler: async ({ ctx, session, url, req }) => {
      const form = await formWithCsrf(req, session);
      authorize({ principal: session.principal, pkg: null }, ADMIN, undefined);
      const account = accountOf(url, session);
      const parsed = createApiKeySchema.safeParse({
        name: (form.get('name') ?? '').trim(),
        scopes: form.getAll('scopes'),
      });
      if (!parsed.success) {
        throw new ServiceError(
          400,
          'invalid_parameter',
          'a key needs a name (1 to 100 characters) and at least one scope',
        );
      }
      refuseUnstorableText(parsed.data, 'invalid_parameter', 'the key name');
      const created = await admin.createApiKey(
        ctx,
        session.principal,
        account,
        parsed.data.name,
        parsed.data.scopes,
      );
      const listing = await admin.listApiKeys(ctx, session.principal, account);
      // Shown in this answer only (no-store), never in a URL or a redirect.
      return page(201, pages.keysPage(session, listing, { name: created.name, key: created.key }));
    },
  },
  {
    method: 'POST',
    pattern: /^\/ui\/keys\/([^/]+)\/revoke$/,
    handler: async ({ ctx, session, url, req, params }) => {
      await formWithCsrf(req, session);
      authorize({ principal: session.principal, pkg: null }, ADMIN, undefined);
      const account = accountOf(url, session);
      await admin.revokeApiKey(ctx, session.principal, pathParameter('id', params[0]!));
      return redirect(`/ui/keys?${new URLSearchParams({ account, done: 'revoked' })}`);
    },
  },
];

/** The account a keys page is about: `?account=`, or the signed-in key's own. */
function accountOf(url: URL, session: UiSession): string {
  const account = url.searchParams.get('account') || session.principal.account;
  if (!accountNameSchema.safeParse(account).success) {
    throw new ServiceError(
      400,
      'invalid_parameter',
      'invalid account name: a lowercase letter or digit, then up to 62 of a-z 0-9 . _ -',
      { details: { parameter: 'account' } },
    );
  }
  return account;
}

/** Answers every request under /ui: always HTML (or the stylesheet), never the API's JSON errors. */
export async function handleUi(
  ctx: ServiceContext,
  req: IncomingMessage,
  url: URL,
  /** The API's per-key rate limit: throws the 429 when spent. A session counts against its key's budget. */
  takeKeyRequest: (keyId: string) => void,
  /** Failed sign-ins per client address (sign-in.ts). */
  signIns: FailureThrottle,
): Promise<Reply> {
  let session: UiSession | null = null;
  try {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (path === '/ui/static/style.css' && method === 'GET') {
      return {
        status: 200,
        raw: { body: STYLESHEET, contentType: 'text/css; charset=utf-8' },
        headers: { ...SECURITY_HEADERS, 'Cache-Control': 'public, max-age=300' },
      };
    }
    const token = cookies(req).get(SESSION_COOKIE);
    if (path === '/ui/login') {
      if (method === 'POST') return await login(ctx, req, signIns);
      if ((await resumeSession(ctx, token)) !== null) return redirect('/ui/packages');
      return loginForm(req, 200);
    }
    session = await resumeSession(ctx, token);
    if (path === '/ui/logout' && method === 'POST') {
      if (session) await formWithCsrf(req, session);
      await signOut(ctx, token);
      return redirect('/ui/login', { 'Set-Cookie': cookie(req, SESSION_COOKIE, '', 0) });
    }
    if (session === null) {
      if (method !== 'GET')
        throw new ServiceError(401, 'session_required', 'your session has ended; sign in again');
      return redirect('/ui/login');
    }
    takeKeyRequest(session.principal.keyId);
    if (path === '/ui' || path === '/ui/') return redirect('/ui/packages');
    for (const route of PAGE_ROUTES) {
      const m = route.pattern.exec(path);
      if (!m || route.method !== method) continue;
      return await route.handler({ ctx, req, url, session, params: m.slice(1) });
    }
    throw new ServiceError(404, 'not_found', 'there is no such page');
  } catch (thrown) {
    const error = thrown instanceof StoreError ? storeErrorReply(thrown) : thrown;
    if (!(error instanceof ServiceError)) throw thrown;
    return page(error.status, pages.errorPage(session, error.status, error.message), error.headers);
  }
}
