// The HTTP API: a Hono app with validation at the edge, `{error}` bodies, optional bearer auth, /health
// and an OpenAPI document generated from the same schemas that validate requests.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Engine } from '../engine.ts';
import { notFoundOrNotAllowed } from './allow.ts';
import { apiKeyAuth } from './auth.ts';
import { jsonValueCheck } from './json-values.ts';
import { jsonDepthLimit } from './nesting.ts';
import { unknownQueryCheck } from './query-params.ts';
import { describeIssues, errorBody, onError } from './errors.ts';
import type { Routes } from './routes/index.ts';

export interface AppOptions {
  apiKey?: string;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  /** The routes to serve (routes/index.ts; the composition root lists every module's). */
  routes: Routes[];
  /** Middleware every request passes before auth (the composition root's request metrics). */
  middleware?: MiddlewareHandler[];
}

export function createApp(engine: Engine, options: AppOptions): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) return c.json(errorBody('bad_request', describeIssues(result.error.issues)), 400);
    },
  });
  app.onError(onError);
  app.notFound(notFoundOrNotAllowed(app));
  for (const m of options.middleware ?? []) app.use('*', m);
  app.use('*', apiKeyAuth(options.apiKey));
  const maxSize = options.maxBodyBytes ?? 16 * 1024 * 1024;
  // A compressed body would reach the JSON parser as bytes and be called malformed: say what to send instead.
  app.use('/v1/*', async (c, next) => {
    const encoding = c.req.header('content-encoding')?.trim().toLowerCase();
    if (!encoding || encoding === 'identity') return next();
    return c.json(errorBody('unsupported_media_type', `content-encoding '${encoding}' is not supported: send the body uncompressed`), 415);
  });
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize,
      onError: (c) =>
        c.json(
          errorBody('payload_too_large', `request body is larger than ${maxSize} bytes; send fewer or smaller items per request`),
          413,
        ),
    }),
  );
  app.use('/v1/*', jsonDepthLimit());
  app.use('/v1/*', jsonValueCheck());
  app.use('/v1/*', unknownQueryCheck(app));
  app.get('/health', (c) => c.json({ status: 'ok', store: engine.storeName, embedder: engine.embedderId }));
  for (const mount of options.routes) mount(app);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: "The server's CAIRN_API_KEY; required on every route but /health when the server has one",
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Cairn', version: '0.1.0', description: 'Memory engine for AI agents' },
    ...(options.apiKey ? { security: [{ bearer: [] }] } : {}),
  });
  return app;
}
