// Consolidation routes: the status of a bank's consolidation (backlog, oldest waiting fact, rate, failures),
// a run triggered now, and the dead-letter list with retry.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { consolidationStatus } from '../../consolidate/status.ts';
import type { ConsolidationWorker } from '../../consolidate/worker.ts';
import type { Engine } from '../../engine.ts';
import { badRequest } from '../../core/errors.ts';
import { log } from '../../log.ts';
import { describeIssues } from '../errors.ts';
import { BankIdParam, ErrorSchema, json } from '../schemas.ts';

const errors = { 400: json(ErrorSchema, 'Invalid request'), 404: json(ErrorSchema, 'No such bank') };

export const ConsolidationStatusSchema = z
  .object({
    bankId: z.string(),
    backlog: z.number().openapi({ description: 'Facts waiting to be consolidated' }),
    oldestWaitingAt: z.string().nullable(),
    oldestWaitingAgeSeconds: z.number().nullable(),
    consolidated: z.number(),
    failed: z.number().openapi({ description: 'Facts on the dead-letter list' }),
    observations: z.number(),
    rate: z.object({
      facts: z.number().openapi({ description: 'Facts consolidated by this process in the window' }),
      perSecond: z.number().nullable().openapi({ description: 'Facts per second of work in the window' }),
      failures: z.number(),
      windowSeconds: z.number(),
      lastBatchAt: z.string().nullable(),
    }),
    lastError: z.object({ error: z.string(), at: z.string() }).nullable(),
    worker: z.object({ id: z.string(), running: z.boolean(), draining: z.boolean() }),
  })
  .openapi('ConsolidationStatus');

const RunReportSchema = z
  .object({
    bankId: z.string(),
    batches: z.number(),
    consolidated: z.number(),
    failed: z.number(),
    created: z.number(),
    revised: z.number(),
    superseded: z.number(),
    ms: z.number(),
  })
  .openapi('ConsolidationRun');

const RetryBody = z.object({ factIds: z.array(z.string()).max(10_000).optional() }).strict();

const DeadLetterSchema = z
  .object({ factId: z.string(), bankId: z.string(), error: z.string(), attempts: z.number(), failedAt: z.string() })
  .openapi('DeadLetter');

export function consolidationRoutes(engine: Engine, worker: ConsolidationWorker): (app: OpenAPIHono) => void {
  return (app) => {
    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/consolidation', tags: ['consolidation'], request: { params: BankIdParam },
        responses: { 200: json(ConsolidationStatusSchema, 'Backlog, age of the oldest waiting fact, rate, failures'), ...errors },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        await engine.requireBank(bank);
        return c.json(await consolidationStatus(engine.store, worker, bank), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'post', path: '/v1/banks/{bank}/consolidate', tags: ['consolidation'],
        request: {
          params: BankIdParam,
          query: z.object({ wait: z.enum(['true', 'false']).optional().openapi({ description: 'Answer when the run is done (default: at once)' }) }).strict(),
        },
        responses: {
          200: json(z.object({ run: RunReportSchema, status: ConsolidationStatusSchema }), 'The run is done'),
          202: json(z.object({ started: z.boolean(), status: ConsolidationStatusSchema }), 'A run started; poll the status'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        await engine.requireBank(bank);
        const run = worker.drain(bank);
        if (c.req.valid('query').wait === 'true') {
          const report = await run;
          return c.json({ run: report, status: await consolidationStatus(engine.store, worker, bank) }, 200);
        }
        run.catch((e: unknown) => log.error(`consolidation run of ${bank} failed: ${e instanceof Error ? e.message : String(e)}`));
        return c.json({ started: true, status: await consolidationStatus(engine.store, worker, bank) }, 202);
      },
    );
    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/consolidation/dead-letters', tags: ['consolidation'], request: { params: BankIdParam },
        responses: { 200: json(z.object({ deadLetters: z.array(DeadLetterSchema) }), 'Facts that kept failing, with their last error'), ...errors },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        await engine.requireBank(bank);
        return c.json({ deadLetters: await engine.store.listDeadLetters(bank) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'post', path: '/v1/banks/{bank}/consolidation/dead-letters/retry', tags: ['consolidation'],
        description: 'Optional JSON body `{"factIds": [...]}` retries only those facts; no body retries all.',
        request: { params: BankIdParam },
        responses: { 200: json(z.object({ retried: z.number() }), 'Dead letters put back in the queue (all, or the given facts)'), ...errors },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        await engine.requireBank(bank);
        const raw = (await c.req.text()).trim();
        let body: z.infer<typeof RetryBody> = {};
        if (raw) {
          const parsed = RetryBody.safeParse(JSON.parse(raw));
          if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues));
          body = parsed.data;
        }
        const retried = await engine.store.retryDeadLetters(bank, body.factIds);
        if (retried) worker.notify(bank);
        return c.json({ retried }, 200);
      },
    );
  };
}
