// Unknown query parameters are a 400 on every route, as unknown body keys are. A route declares the query
// parameters it takes in its OpenAPI definition (its zod query schema); routes that take none declared nothing, so
// `GET /v1/banks?limit=-1&bogus=1` or `POST .../memories?async=true` (async is a body field) were answered as if
// the parameters were not there. The table of what each route takes is read from the app's own OpenAPI registry,
// once every route is added (as allow.ts reads the methods).
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.ts';

interface RouteParams {
  method: string;
  match: RegExp;
  /** The query parameters it takes, or null when its query schema cannot be read as an object (then unchecked). */
  query: Set<string> | null;
  /** Its JSON body's fields (to say that a parameter belongs in the body). */
  body: Set<string>;
}

/** The keys of a zod object schema (zod 4 keeps `shape` on refined objects), or null. */
function keysOf(schema: unknown): Set<string> | null {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape && typeof shape === 'object' ? new Set(Object.keys(shape)) : null;
}

function routeTable(app: OpenAPIHono): RouteParams[] {
  const out: RouteParams[] = [];
  for (const d of app.openAPIRegistry.definitions) {
    if (d.type !== 'route') continue;
    const { method, path, request } = d.route;
    const source = path
      .split('/')
      .map((part) => (/^\{.+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const bodySchema = (request?.body?.content?.['application/json'] as { schema?: unknown } | undefined)?.schema;
    out.push({
      method: method.toUpperCase(),
      match: new RegExp(`^${source}$`),
      query: request?.query ? keysOf(request.query) : new Set(),
      body: keysOf(bodySchema) ?? new Set(),
    });
  }
  return out;
}

export function unknownQueryCheck(app: OpenAPIHono): MiddlewareHandler {
  let table: RouteParams[] | null = null;
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (url.search === '' || url.search === '?') return next();
    table ??= routeTable(app);
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const route = table.find((r) => r.method === method && r.match.test(c.req.path));
    if (!route?.query) return next();
    const unknown = [...new Set(url.searchParams.keys())].filter((k) => !route.query!.has(k));
    if (!unknown.length) return next();
    const takes = route.query.size ? `it takes ${[...route.query].join(', ')}` : 'it takes none';
    const inBody = unknown.filter((k) => route.body.has(k));
    const hint = inBody.length
      ? `; ${inBody.join(', ')} ${inBody.length > 1 ? 'are body fields' : 'is a body field'}: send it in the JSON body`
      : '';
    return c.json(
      errorBody('bad_request', `unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: ${takes}${hint}`),
      400,
    );
  };
}
