// OpenTelemetry traces. Modules mark their steps with `traced` (retain stages, recall arms, fusion and rerank,
// consolidation batches, LLM calls, HTTP requests); through the OpenTelemetry API these are no-ops until a tracer
// provider is started, which the composition root does only when the configuration names an OTLP endpoint.
import { context, type Attributes, DiagLogLevel, diag, propagation, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { TelemetryConfig } from '../config/index.ts';
import { log } from '../log.ts';

const TRACER = 'cairn';

/** Runs `fn` in a span named `name`, a child of the active one; a throw marks the span failed and passes on. */
export function traced<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The same for synchronous work. */
export function tracedSync<T>(name: string, attributes: Attributes, fn: () => T): T {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, (span) => {
    try {
      return fn();
    } finally {
      span.end();
    }
  });
}

export interface Tracing {
  /** Sends what is buffered and stops tracing in this thread. */
  shutdown(): Promise<void>;
}

let active: { tracing: Tracing; users: number } | null = null;

/** Starts tracing in this thread: spans go to `exporter` (batched unless `batch` is false). A second start while
 * tracing runs shares the first (the OpenTelemetry globals take one provider); it stops when every user stopped. */
export function startTracing(options: { serviceName: string; exporter: SpanExporter; batch?: boolean }): Tracing {
  if (!active) {
    const processor =
      options.batch === false
        ? new SimpleSpanProcessor({ exporter: options.exporter })
        : new BatchSpanProcessor({ exporter: options.exporter });
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': options.serviceName }),
      spanProcessors: [processor],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    // A caller's traceparent header continues its trace into Cairn (requestSpans).
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    // The SDK reports export failures (a collector down or refusing) through diag: into the log, as warnings.
    const warn = (message: string): void => log.warn(`tracing: ${message}`);
    const quiet = (): void => {};
    diag.setLogger({ error: warn, warn, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
    /** Sends what is buffered; a collector that is down or failing costs a warning, never the shutdown itself. */
    const shutdown = async (): Promise<void> => {
      try {
        await provider.shutdown();
      } catch (e) {
        warn(`the last spans were not sent (${e instanceof Error ? e.message : String(e)})`);
      }
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    };
    active = { tracing: { shutdown }, users: 0 };
  }
  const shared = active;
  shared.users++;
  let stopped = false;
  return {
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      if (--shared.users > 0) return;
      if (active === shared) active = null;
      await shared.tracing.shutdown();
    },
  };
}

/** Tracing to the configured OTLP endpoint, or null when none is named (tracing off). */
export function tracingFromConfig(config: TelemetryConfig): Tracing | null {
  if (!config.tracesUrl) return null;
  return startTracing({
    serviceName: config.serviceName,
    // A collector that does not answer holds an export (and the shutdown's last one) this long at most.
    exporter: new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers, timeoutMillis: 3000 }),
  });
}

/** A span for a step already timed (performance.now() values): recall times its stages itself and reports them so,
 * which keeps its code free of span plumbing and its timings and spans equal. A child of the active span. */
export function timedSpan(name: string, startMs: number, endMs: number, attributes: Attributes = {}): void {
  const tracer = trace.getTracer(TRACER);
  const at = (ms: number): number => performance.timeOrigin + ms;
  tracer.startSpan(name, { attributes, startTime: at(startMs) }).end(at(endMs));
}
