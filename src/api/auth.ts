// Bearer-token auth: when an API key is configured every route but /health requires it. The scheme name is
// case-insensitive (RFC 7235); keys are compared as SHA-256 digests in constant time, so neither the content nor
// the length of the configured key leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.ts';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function apiKeyAuth(apiKey: string | undefined): MiddlewareHandler {
  const expected = apiKey ? digest(apiKey) : null;
  return async (c, next) => {
    if (!expected || c.req.path === '/health') return next();
    const given = /^bearer +(.*)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected))
      return c.json(errorBody('unauthorized', 'missing or wrong API key: send Authorization: Bearer <CAIRN_API_KEY>'), 401);
    return next();
  };
}
