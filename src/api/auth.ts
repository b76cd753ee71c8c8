// Bearer-token auth: when an API key is configured every route but /health requires it.
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.ts';

export function apiKeyAuth(apiKey: string | undefined): MiddlewareHandler {
  const expected = apiKey ? Buffer.from(apiKey) : null;
  return async (c, next) => {
    if (!expected || c.req.path === '/health') return next();
    const header = c.req.header('authorization') ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return c.json(errorBody('unauthorized', 'missing or wrong API key: send Authorization: Bearer <CAIRN_API_KEY>'), 401);
    return next();
  };
}
