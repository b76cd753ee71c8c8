// The HTTP side of metrics: a middleware timing every request by its route pattern (never the raw path, whose
// ids would make a series per fact), and GET /metrics in Prometheus' text format, behind the API key like every
// route but /health.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { routeOf } from './route.ts';
import type { Metrics } from './metrics.ts';

export function requestMetrics(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = routeOf(c) ?? 'unmatched';
      metrics.observeRequest(c.req.method, route, c.res.status, (performance.now() - started) / 1000);
    }
  };
}

export function metricsRoutes(metrics: Metrics): (app: OpenAPIHono) => void {
  return (app) => {
    app.get('/metrics', async (c) => c.body(await metrics.text(), 200, { 'content-type': metrics.contentType }));
  };
}
