// Metrics: Prometheus series (metrics.ts) fed by the composition root, the request middleware and /metrics (http.ts),
// and the route label a request is known by (route.ts, shared with the request spans).
export { metricsRoutes, requestMetrics } from './http.ts';
export { type ConsolidationSource, Metrics, type MetricsOptions } from './metrics.ts';
export { routeOf } from './route.ts';
