// Metrics: Prometheus series (metrics.ts) fed by the composition root, the request middleware and /metrics (http.ts).
export { metricsRoutes, requestMetrics } from './http.ts';
export { type ConsolidationSource, Metrics, type MetricsOptions } from './metrics.ts';
