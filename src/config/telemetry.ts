// OpenTelemetry traces: off unless an OTLP endpoint is named (the standard variables, so collectors' docs apply).
//   OTEL_EXPORTER_OTLP_ENDPOINT          OTLP/HTTP base URL; traces go to <it>/v1/traces (turns tracing on)
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT   the full traces URL instead (turns tracing on)
//   OTEL_EXPORTER_OTLP_HEADERS           headers for the collector, `key=value,key2=value2` (for example an API key)
//   OTEL_SERVICE_NAME                    the service name spans carry (default cairn)
import { z } from 'zod';
import { section, text } from './variables.ts';

export interface TelemetryConfig {
  /** Where spans are sent (OTLP over HTTP, JSON); null: tracing off. */
  tracesUrl: string | null;
  headers: Record<string, string>;
  serviceName: string;
}

const url = () => text().refine((v) => v === undefined || URL.canParse(v), { message: 'must be a URL such as http://127.0.0.1:4318' });

const headerList = text().refine((v) => v === undefined || v.split(',').every((pair) => /^[^=\s]+=.*$/.test(pair.trim())), {
  message: 'must be key=value pairs separated by commas',
});

/** Percent-decoded as the OpenTelemetry spec has it; a value that does not decode is taken as written. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export const TELEMETRY = section(
  z.object({
    OTEL_EXPORTER_OTLP_ENDPOINT: url(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(),
    OTEL_EXPORTER_OTLP_HEADERS: headerList,
    OTEL_SERVICE_NAME: text(),
  }),
  (v): TelemetryConfig => ({
    tracesUrl:
      v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      (v.OTEL_EXPORTER_OTLP_ENDPOINT ? `${v.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : null),
    headers: Object.fromEntries(
      (v.OTEL_EXPORTER_OTLP_HEADERS ?? '')
        .split(',')
        .filter((pair) => pair.trim())
        .map((pair) => {
          const at = pair.indexOf('=');
          return [decoded(pair.slice(0, at).trim()), decoded(pair.slice(at + 1).trim())];
        }),
    ),
    serviceName: v.OTEL_SERVICE_NAME ?? 'cairn',
  }),
);
