// OpenTelemetry traces: off unless an OTLP endpoint is named (the standard variables, so collectors' docs apply).
//   OTEL_EXPORTER_OTLP_ENDPOINT          OTLP/HTTP base URL; traces go to <it>/v1/traces (turns tracing on)
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT   the full traces URL instead (turns tracing on)
//   OTEL_EXPORTER_OTLP_HEADERS           headers for the collector, `key=value,key2=value2` (for example an API key)
//   OTEL_SERVICE_NAME                    the service name spans carry (default cairn)
//   OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none   tracing off whatever the endpoint
//   OTEL_EXPORTER_OTLP_PROTOCOL          http/json, the only protocol Cairn sends (others are refused, not ignored)
import { z } from 'zod';
import { section, text } from './variables.ts';

export interface TelemetryConfig {
  /** Where spans are sent (OTLP over HTTP, JSON); null: tracing off. */
  tracesUrl: string | null;
  headers: Record<string, string>;
  serviceName: string;
}

/** An http(s) URL (`localhost:4318` parses as a URL of scheme "localhost:", so the scheme is checked). */
const url = () =>
  text().refine((v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && !new URL(v).search), {
    message: 'must be an http or https URL without a query, such as http://127.0.0.1:4318',
  });

/** A header name (an RFC 9110 token) and a value without line breaks, once percent-decoded. */
const goodHeader = (pair: string): boolean => {
  const at = pair.indexOf('=');
  return at > 0 && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(decoded(pair.slice(0, at).trim())) && !/[\r\n\0]/.test(decoded(pair.slice(at + 1)));
};

const headerList = text().refine((v) => v === undefined || v.split(',').every((pair) => goodHeader(pair.trim())), {
  message: 'must be name=value pairs separated by commas (names without spaces, values without line breaks)',
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
    OTEL_SDK_DISABLED: text().refine((v) => v === undefined || /^(true|false)$/i.test(v), { message: 'must be true or false' }),
    OTEL_TRACES_EXPORTER: text().refine((v) => v === undefined || v === 'otlp' || v === 'none', {
      message: 'must be otlp or none (Cairn exports traces over OTLP only)',
    }),
    OTEL_EXPORTER_OTLP_PROTOCOL: text().refine((v) => v === undefined || v === 'http/json', {
      message: 'must be http/json: Cairn sends OTLP over HTTP as JSON only',
    }),
  }),
  (v): TelemetryConfig => ({
    tracesUrl:
      v.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || v.OTEL_TRACES_EXPORTER === 'none'
        ? null
        : (v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
          (v.OTEL_EXPORTER_OTLP_ENDPOINT ? `${v.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : null)),
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
