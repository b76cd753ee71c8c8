// Error responses: every failure is `{error: {code, message}}` with a status that says whose fault it is.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CairnError } from '../core/index.ts';
import { log } from '../log.ts';

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** A readable line per validation issue: "items.0.content: content must not be empty". */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

export function onError(err: Error, c: Context): Response {
  if (err instanceof CairnError) return c.json(errorBody(err.code, err.message), err.status as ContentfulStatusCode);
  if (err instanceof SyntaxError) return c.json(errorBody('bad_request', `request body is not valid JSON: ${err.message}`), 400);
  const status = (err as { status?: unknown }).status;
  if (status === 415)
    return c.json(
      errorBody('unsupported_media_type', 'the request body must be JSON: send it with the header content-type: application/json'),
      415,
    );
  if (typeof status === 'number' && status >= 400 && status < 500)
    return c.json(errorBody('bad_request', err.message), status as ContentfulStatusCode);
  log.error(`unhandled error on ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`);
  return c.json(errorBody('internal', 'internal error; see the server log'), 500);
}
