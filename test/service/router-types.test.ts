// The router types each handler's input from its route's own data: checked by `npm run typecheck` (this file
// is in tsconfig.json), and at run time by the handlers these routes call.
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import type { RequestBody } from '../../src/service/core/body.js';
import { BOOLEAN_VALUES, defineRoute, type Reply } from '../../src/service/http/router.js';
import type { PackageRecord } from '../../src/service/store/index.js';
import type { Principal } from '../../src/service/types.js';

const ok: Reply = { status: 204 };
const SEVERITIES = ['low', 'high'] as const;

describe('defineRoute', () => {
  it('types path parameters, query, JSON body, principal and package from the route', async () => {
    const route = defineRoute({
      method: 'POST',
      path: '/p/{package_id}/f/{finding_id}',
      operationId: 'typed',
      summary: 'typed',
      tag: 'management',
      access: { scope: 'compliance:write', pkg: 'existing' },
      query: {
        min_severity: { description: 'd', values: SEVERITIES, default: 'low' },
        fail_status: { description: 'd', values: BOOLEAN_VALUES },
        after: { description: 'd', integer: { min: 0, max: 9 } },
      },
      body: { kind: 'json', schema: z.object({ reason: z.string() }) },
      responses: { 204: { description: 'none' } },
      async handler(input) {
        expectTypeOf(input.params).toEqualTypeOf<Record<'package_id' | 'finding_id', string>>();
        expectTypeOf(input.query.min_severity).toEqualTypeOf<'low' | 'high'>();
        expectTypeOf(input.query.fail_status).toEqualTypeOf<'true' | 'false' | undefined>();
        expectTypeOf(input.query.after).toEqualTypeOf<string | undefined>();
        expectTypeOf(input.body).toEqualTypeOf<{ reason: string }>();
        expectTypeOf(input.principal).toEqualTypeOf<Principal>();
        expectTypeOf(input.pkg).toEqualTypeOf<PackageRecord>();
        return { status: 200, json: [input.params.finding_id, input.query.min_severity, input.body.reason] };
      },
    });
    const reply = await route.handler({
      ctx: undefined as never,
      headers: {},
      client: '127.0.0.1',
      params: { package_id: 'p', finding_id: 'f' },
      query: { min_severity: 'high' },
      body: { reason: 'why' },
      principal: undefined,
      pkg: null,
    });
    expect(reply.json).toEqual(['f', 'high', 'why']);
  });

  it('types an optional JSON body, a stream, and routes without a key or a package', () => {
    defineRoute({
      method: 'POST',
      path: '/a',
      operationId: 'optional',
      summary: 's',
      tag: 'admin',
      access: { scope: 'admin' },
      body: { kind: 'json', schema: z.object({ revision: z.optional(z.string()) }), optional: true },
      responses: {},
      async handler(input) {
        expectTypeOf(input.body).toEqualTypeOf<{ revision?: string | undefined } | undefined>();
        expectTypeOf(input.pkg).toEqualTypeOf<null>();
        expectTypeOf(input.principal).toEqualTypeOf<Principal>();
        return ok;
      },
    });
    defineRoute({
      method: 'PUT',
      path: '/b',
      operationId: 'stream',
      summary: 's',
      tag: 'operations',
      access: null,
      body: { kind: 'stream', contentTypes: ['application/json'], description: 'd' },
      responses: {},
      async handler(input) {
        expectTypeOf(input.body).toEqualTypeOf<RequestBody>();
        expectTypeOf(input.principal).toEqualTypeOf<undefined>();
        expectTypeOf(input.query).toEqualTypeOf<Record<never, never>>();
        return ok;
      },
    });
  });
});
