// The design at a revision: the proposed (current) design and the approved one, for review and diff.
import { designAtRevision } from '../core/design-revisions.js';
import { PACKAGE_PATH } from './paths.js';
import { defineRoute, type Route } from './router.js';
import { designRevisionSchema } from './schemas.js';

export const DESIGN_ROUTES: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: `${PACKAGE_PATH}/design`,
    operationId: 'getDesignRevision',
    summary:
      "The package's design at a revision: current (the default, proposed when not approved), approved, or a pushed revision",
    tag: 'management',
    access: { scope: 'compliance:read', pkg: 'existing' },
    query: {
      revision: {
        description: 'current, approved, or a revision as PUT answered it',
        default: 'current',
      },
    },
    responses: { 200: { description: 'the design at that revision', schema: designRevisionSchema } },
    errors: [{ status: 404, codes: ['revision_not_found'] }],
    handler: async ({ ctx, pkg, query }) => ({
      status: 200,
      json: await designAtRevision(ctx, pkg, query.revision),
    }),
  }),
];
