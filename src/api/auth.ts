// Bearer-token auth: when an API key is configured, every route but /health and the explorer's files requires it.
// The scheme name is case-insensitive (RFC 7235); keys are compared as SHA-256 digests in constant time, so neither
// the content nor the length of the configured key leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.ts';

/** Paths served without the key: the health check, and the explorer's page and assets (they hold no memory
 * content; the page asks for the key and sends it with every API call). */
const isPublic = (path: string): boolean => path === '/health' || path === '/ui' || path === '/ui/' || /^\/ui\/app\.(js|css)$/.test(path);

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function apiKeyAuth(apiKey: string | undefined): MiddlewareHandler {
  const expected = apiKey ? digest(apiKey) : null;
  return async (c, next) => {
    if (!expected || isPublic(c.req.path)) return next();
    const given = /^bearer +(.*)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected))
      return c.json(errorBody('unauthorized', 'missing or wrong API key: send Authorization: Bearer <CAIRN_API_KEY>'), 401);
    return next();
  };
}
