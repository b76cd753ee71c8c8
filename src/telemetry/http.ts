// A server span per HTTP request, named by its route pattern once routing chose one (GET /v1/banks/:bank/recall;
// the bare method when none did), so the spans of retain, recall and LLM calls nest under the request that caused
// them.
import { context, propagation, SpanStatusCode } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routeOf } from '../metrics/index.ts';
import { traced } from './tracing.ts';

/** Reads W3C trace headers (traceparent, tracestate) from a request's headers. */
const headerGetter = {
  keys: (headers: Headers): string[] => [...headers.keys()],
  get: (headers: Headers, key: string): string | undefined => headers.get(key) ?? undefined,
};

export function requestSpans(): MiddlewareHandler {
  return (c, next) =>
    // A request carrying a caller's traceparent continues that trace.
    context.with(propagation.extract(context.active(), c.req.raw.headers, headerGetter), () =>
      traced(`${c.req.method}`, { 'http.request.method': c.req.method }, async (span) => {
        await next();
        // A request no route took keeps the bare method as its name (OpenTelemetry's rule for an unknown route).
        const route = routeOf(c);
        if (route) span.updateName(`${c.req.method} ${route}`);
        span.setAttributes({ ...(route ? { 'http.route': route } : {}), 'http.response.status_code': c.res.status });
        // A server error fails the request's span (a client's 4xx does not: the server did its part).
        if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `answered ${c.res.status}` });
      }),
    );
}
