// Which methods a path answers to, read from the app's own routes: a request whose path is known but whose
// method is not gets a 405 with an Allow header (RFC 9110), OPTIONS gets the list, and only unknown paths a 404.
import type { Context } from 'hono';
import { quoteId } from '../core/index.ts';
import { errorBody } from './errors.ts';

type RouteLike = { method: string; path: string };

/** A route path (`/v1/banks/:bank`) as a pattern matching concrete paths. */
function pattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** The methods each route path answers to (HEAD wherever GET is), built once the app's routes are all added. */
function allowTable(routes: readonly RouteLike[]): Array<{ match: RegExp; methods: string[] }> {
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue; // middleware
    const methods = byPath.get(r.path) ?? new Set<string>();
    methods.add(r.method.toUpperCase());
    if (r.method.toUpperCase() === 'GET') methods.add('HEAD');
    byPath.set(r.path, methods);
  }
  return [...byPath].map(([path, methods]) => ({ match: pattern(path), methods: [...methods].sort() }));
}

/** A not-found handler that tells a wrong method (405, Allow) from an unknown path (404). */
export function notFoundOrNotAllowed(app: { routes: readonly RouteLike[] }): (c: Context) => Response {
  let table: ReturnType<typeof allowTable> | null = null;
  return (c) => {
    table ??= allowTable(app.routes);
    const allowed = [...new Set(table.filter((t) => t.match.test(c.req.path)).flatMap((t) => t.methods))].sort();
    if (!allowed.length) return c.json(errorBody('not_found', `no route for ${c.req.method} ${quoteId(c.req.path)}`), 404);
    const allow = [...allowed, 'OPTIONS'].join(', ');
    if (c.req.method === 'OPTIONS') return c.body(null, 204, { Allow: allow });
    c.header('Allow', allow);
    return c.json(errorBody('method_not_allowed', `${c.req.path} does not answer ${c.req.method}; use ${allowed.join(', ')}`), 405);
  };
}
