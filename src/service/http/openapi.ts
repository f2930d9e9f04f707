// The OpenAPI 3.1 document, generated from the route table and the same zod schemas the routes use.
import * as z from '../../schemas/zod.js';
import type { Route } from './router.js';
import { errorBodySchema, pathParameterSchemas } from './schemas.js';

type JsonObject = Record<string, unknown>;

/** Converts a zod schema, moving its $defs into components.schemas and pointing refs there. */
function toSchema(schema: z.ZodMiniType, components: JsonObject, io: 'input' | 'output'): JsonObject {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonObject;
  delete converted.$schema;
  const defs = (converted.$defs ?? {}) as Record<string, JsonObject>;
  delete converted.$defs;
  for (const [id, def] of Object.entries(defs)) {
    if (!(id in components)) components[id] = rewriteRefs(def);
  }
  return rewriteRefs(converted) as JsonObject;
}

function rewriteRefs(value: unknown): JsonObject {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonObject;
}

const ACCESS_ERRORS: Record<number, string> = {
  401: 'missing_api_key or invalid_api_key',
  403: 'insufficient_scope or plan_not_eligible',
  404: 'package_not_found (also for another account’s package)',
  409: 'package_not_approved',
  400: 'invalid_parameter (the message lists the allowed values, or names the malformed path parameter or body field)',
  429: 'rate_limited (see Retry-After)',
};

export function buildOpenApi(routes: readonly Route[], version: string): JsonObject {
  const components: JsonObject = {};
  const errorRef = toSchema(errorBodySchema, components, 'output');
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const parameters: JsonObject[] = [];
    for (const name of route.path.matchAll(/\{(\w+)\}/g)) {
      const known = pathParameterSchemas[name[1]!];
      const schema = known ? toSchema(known, components, 'input') : { type: 'string' };
      parameters.push({ name: name[1], in: 'path', required: true, schema });
    }
    for (const [name, spec] of Object.entries(route.query ?? {})) {
      const schema: JsonObject = spec.values
        ? { type: 'string', enum: [...spec.values] }
        : spec.integer
          ? { type: 'integer', minimum: spec.integer.min, maximum: spec.integer.max }
          : { type: 'string' };
      if (spec.default !== undefined) schema.default = spec.default;
      parameters.push({ name, in: 'query', required: false, description: spec.description, schema });
    }
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters,
      responses: {},
    };
    if (route.access) {
      operation.security = [{ apiKey: [] }];
      operation['x-required-scope'] = route.access.scope;
      if (route.access.minPlan) operation['x-required-plan'] = route.access.minPlan;
    } else {
      operation.security = [];
    }
    if (route.body) {
      const body = route.body;
      operation.requestBody =
        body.kind === 'json'
          ? {
              required: !body.optional,
              content: { 'application/json': { schema: toSchema(body.schema, components, 'input') } },
            }
          : {
              required: true,
              description: body.description,
              // Streamed or read as text, but a JSON body is a JSON object (a plan, a state, a design).
              content: Object.fromEntries(
                body.contentTypes.map((type) => [
                  type,
                  { schema: { type: type === 'application/json' ? 'object' : 'string' } },
                ]),
              ),
            };
    }
    const responses = operation.responses as Record<string, JsonObject>;
    for (const [status, spec] of Object.entries(route.responses)) {
      const content: JsonObject = {};
      if (spec.schema) content['application/json'] = { schema: toSchema(spec.schema, components, 'output') };
      for (const [type, description] of Object.entries(spec.content ?? {})) {
        content[type] = { schema: { type: 'string', description } };
      }
      responses[status] =
        Object.keys(content).length > 0
          ? { description: spec.description, content }
          : { description: spec.description };
    }
    const errorStatuses = new Map<number, string[]>();
    if (route.access) {
      errorStatuses.set(401, [ACCESS_ERRORS[401]!]);
      errorStatuses.set(403, [ACCESS_ERRORS[403]!]);
      errorStatuses.set(429, [ACCESS_ERRORS[429]!]);
      if (route.access.pkg) errorStatuses.set(404, [ACCESS_ERRORS[404]!]);
      if (route.access.pkg === 'approved') errorStatuses.set(409, [ACCESS_ERRORS[409]!]);
    }
    // Path parameters are checked for control characters and invalid UTF-8 (400) on every route that has one.
    const hasPathParameters = parameters.some((p) => p.in === 'path');
    if (route.query || route.body?.kind === 'json' || hasPathParameters) {
      errorStatuses.set(400, [ACCESS_ERRORS[400]!]);
    }
    // Every body is refused when of another media type, or larger than its limit.
    if (route.body) {
      errorStatuses.set(413, ['payload_too_large']);
      errorStatuses.set(415, ['unsupported_media_type']);
    }
    for (const extra of route.errors ?? []) {
      errorStatuses.set(extra.status, [...(errorStatuses.get(extra.status) ?? []), ...extra.codes]);
    }
    for (const [status, codes] of errorStatuses) {
      const declared = responses[status];
      if (declared) {
        declared.description = `${declared.description}; errors: ${codes.join(', ')}`;
        // The route's own body (a blocked decision with its error) or, for any other code, the error body.
        const json = (declared.content as Record<string, JsonObject> | undefined)?.['application/json'];
        if (json) json.schema = { anyOf: [json.schema, errorRef] };
        continue;
      }
      responses[status] = {
        description: codes.join(', '),
        content: { 'application/json': { schema: errorRef } },
      };
    }
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tfgate conformance service',
      version,
      description:
        'The conformance gate, Terraform plan evaluation, signed policy bundles and drift with audited acknowledgements. Every call carries X-Api-Key; errors are {"error": {"code", "message"}}.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
    },
  };
}
