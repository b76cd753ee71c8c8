// Values a JSON body may spell but no schema can keep, refused before validation with a 400 naming where they are:
// - a number too large for a double (`1e400`) parses to Infinity; where the schema takes any value (thread tool-call
//   arguments) it was stored as null, elsewhere refused as "received Infinity";
// - a key "__proto__" is an own key after JSON.parse, but zod's records (metadata, bank config, settings) build
//   their output by assignment, where it sets the prototype instead, so the key was silently lost.
// Refusing both everywhere makes one rule for every route instead of a quiet change in some.
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.ts';

/** The first value in a parsed JSON document that cannot be kept as sent, as `path: problem`, or null. */
export function jsonValueProblem(value: unknown, path: string[] = []): string | null {
  const where = () => (path.length ? path.join('.') : 'the body');
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${where()}: ${value} is not a finite number`;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = jsonValueProblem(value[i], [...path, String(i)]);
      if (problem) return problem;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return `${[...path, key].join('.')}: the key "__proto__" is not allowed`;
    const problem = jsonValueProblem((value as Record<string, unknown>)[key], [...path, key]);
    if (problem) return problem;
  }
  return null;
}

/** What a JSON text holding "__proto__" or a non-finite number must contain: the key (any escape spells it with a
 * backslash-u), or a digit followed by an exponent, or a run of 309 digits. */
const MAY_HOLD_PROBLEM = /__proto__|\\u|\d[eE]|\d{309}/;

/** Refuses a JSON request body holding a value jsonValueProblem names (after jsonDepthLimit, so the walk is shallow). */
export function jsonValueCheck(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const text = await c.req.text();
    // Nearly every body holds neither: no key that could be "__proto__" (spelled out or escaped) and no number with
    // an exponent or 309 digits (the least that overflows a double), so it is not parsed twice.
    if (!MAY_HOLD_PROBLEM.test(text)) return next();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return next(); // not JSON: the route's validator says so
    }
    const problem = jsonValueProblem(parsed);
    if (problem) return c.json(errorBody('bad_request', problem), 400);
    return next();
  };
}
