// The HTTP routes of every module, each a function that mounts its routes on the app (one signature for all). The
// composition root lists the ones a process serves (compose.ts); createApp mounts that list and nothing else.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import { bankRoutes } from './banks.ts';
import { memoryRoutes } from './memories.ts';
import { recallRoutes } from './recall.ts';

export type Routes = (app: OpenAPIHono) => void;

/** The core's routes: banks, memories (retain, reads, deletes, operations), recall. */
export function coreRoutes(engine: Engine): Routes[] {
  return [bankRoutes(engine), memoryRoutes(engine), recallRoutes(engine)];
}

export { auditRoutes } from './audit.ts';
export { consolidationRoutes } from './consolidation.ts';
export { reflectRoutes } from './reflect.ts';
export { threadRoutes } from './threads.ts';
export { usageRoutes } from './usage.ts';
