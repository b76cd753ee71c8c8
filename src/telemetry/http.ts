// A server span per HTTP request, named by its route pattern once routing chose one (GET /v1/banks/:bank/recall),
// so the spans of retain, recall and LLM calls nest under the request that caused them.
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { traced } from './tracing.ts';

export function requestSpans(): MiddlewareHandler {
  return (c, next) =>
    traced(`${c.req.method}`, { 'http.request.method': c.req.method }, async (span) => {
      await next();
      const route = routePath(c, -1);
      span.updateName(`${c.req.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': c.res.status });
    });
}
