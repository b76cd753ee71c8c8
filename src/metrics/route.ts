// The route pattern a request was answered by (GET /v1/banks/:bank/recall, never the raw path with its ids), shared
// by the request metrics and spans so both name a request alike.
import type { Context } from 'hono';
import { routePath } from 'hono/route';

/** The handler's route pattern; null when no route took the request (a 404, or auth refused it first). */
export function routeOf(c: Context): string | null {
  // The last route matched is the handler's; a middleware pattern (/*, /v1/*) there means no handler ran.
  const matched = routePath(c, -1);
  return matched.endsWith('*') ? null : matched;
}
