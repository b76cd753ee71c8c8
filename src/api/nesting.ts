// A cap on how deeply a JSON request body nests. JSON.parse reads any depth, but the code after it does not:
// storing a bank config or thread settings nested 100,000 levels deep overflowed the stack in JSON.stringify (a
// 500). The body's text is scanned once, before anything parses it; Hono keeps the text for the validators.
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.ts';

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in a JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

export function jsonDepthLimit(max = MAX_JSON_DEPTH): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const text = await c.req.text();
    if (text.length > max && jsonDepth(text) > max)
      return c.json(errorBody('bad_request', `request body nests arrays and objects deeper than ${max} levels`), 400);
    return next();
  };
}
