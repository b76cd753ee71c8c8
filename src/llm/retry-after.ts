// Reads a server's "come back later" hint: Retry-After (delta seconds or an HTTP date) and the non-standard
// retry-after-ms some OpenAI-compatible servers send. Returns milliseconds to wait, or undefined.

/** Minimal view of a response's headers (the fetch Headers class fits). */
export interface HeaderReader {
  get(name: string): string | null;
}

/** Parses one Retry-After value: "120" (seconds) or "Wed, 21 Oct 2015 07:28:00 GMT". Past dates give 0. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The wait a response asks for, preferring the millisecond header when both are present. */
export function retryAfterFromHeaders(headers: HeaderReader | null | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms != null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  return parseRetryAfter(headers.get('retry-after'), now);
}
