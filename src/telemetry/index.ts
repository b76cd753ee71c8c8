// Traces: spans around Cairn's steps (no-ops until tracing starts) and starting it (tracing.ts).
export { requestSpans } from './http.ts';
export { startTracing, timedSpan, type Tracing, traced, tracedSync, tracingFromConfig } from './tracing.ts';
