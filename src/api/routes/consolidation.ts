// Consolidation routes: the status of a bank's consolidation (backlog, oldest waiting fact, why it waits, rate,
// failures), a run triggered now (which says whether it could start), and the dead-letter list with retry.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Consolidation } from '../../consolidate/index.ts';
import type { Engine } from '../../engine.ts';
import { badRequest } from '../../core/index.ts';
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
    waiting: z
      .object({
        ready: z.number().openapi({ description: 'Waiting facts a worker may claim now' }),
        claims: z.array(
          z.object({
            workerId: z.string(),
            facts: z.number(),
            leaseUntil: z.string(),
            heartbeatAt: z.string().nullable(),
            heartbeatAgeSeconds: z.number().nullable(),
            holder: z.enum(['alive', 'dead', 'expired']).openapi({ description: 'dead or expired: the next claim takes the facts over' }),
            gone: z.string().nullable().openapi({ description: 'Why the holder is presumed dead' }),
          }),
        ),
        retrying: z.object({ facts: z.number(), nextAttemptAt: z.string().nullable(), lastError: z.string().nullable() }),
        reason: z.string().nullable().openapi({ description: 'Why the backlog waits, in words (null when nothing waits)' }),
      })
      .openapi({ description: "Why the waiting facts wait: claims with their holder's heartbeat, retries after errors" }),
    workers: z
      .array(
        z.object({
          id: z.string(),
          role: z.string(),
          host: z.string(),
          pid: z.number(),
          heartbeatAgeSeconds: z.number(),
          alive: z.boolean(),
        }),
      )
      .openapi({
        description: "Processes beating for this store ('worker': a consolidation loop; 'drain': runs asked for through the API)",
      }),
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

const RetryBody = z
  .object({ factIds: z.array(z.string()).max(10_000).optional().openapi({ description: 'Only these facts (default: all)' }) })
  .strict()
  .openapi('DeadLetterRetry');

/**
 * A body that may be absent, read by hand: a declared optional JSON body is validated whenever the request says
 * content-type: application/json, and an empty one is then "malformed JSON" where no body must mean the default.
 * Absent or blank: null.
 */
async function optionalBody(c: { req: { text: () => Promise<string> } }): Promise<unknown> {
  const raw = (await c.req.text()).trim();
  return raw ? JSON.parse(raw) : null;
}

const DeadLetterSchema = z
  .object({ factId: z.string(), bankId: z.string(), error: z.string(), attempts: z.number(), failedAt: z.string() })
  .openapi('DeadLetter');

export function consolidationRoutes(engine: Engine, consolidation: Consolidation): (app: OpenAPIHono) => void {
  return (app) => {
    app.openAPIRegistry.register('DeadLetterRetry', RetryBody);
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/consolidation',
        tags: ['consolidation'],
        request: { params: BankIdParam },
        responses: { 200: json(ConsolidationStatusSchema, 'Backlog, age of the oldest waiting fact, rate, failures'), ...errors },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        return c.json(await consolidation.status(bank), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/consolidate',
        tags: ['consolidation'],
        request: {
          params: BankIdParam,
          query: z
            .object({
              wait: z.enum(['true', 'false']).optional().openapi({ description: 'Answer when the run is done (default: at once)' }),
            })
            .strict(),
        },
        responses: {
          200: json(
            z.union([
              z
                .object({ run: RunReportSchema, status: ConsolidationStatusSchema })
                .openapi({ description: 'With wait=true: the run is done' }),
              z
                .object({ started: z.literal(false), reason: z.string(), status: ConsolidationStatusSchema })
                .openapi({ description: 'Nothing could be claimed now, and why' }),
            ]),
            'The run is done (wait=true), or nothing could start (started: false, with the reason)',
          ),
          202: json(
            z.object({ started: z.literal(true), status: ConsolidationStatusSchema }),
            'A run started (it claimed a batch); poll the status',
          ),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        // It takes no body: fields sent in one (say {"wait": true}) would otherwise be ignored without a word.
        const body = await optionalBody(c);
        if (body !== null && (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length))
          throw badRequest(
            `consolidate takes no request body${body && typeof body === 'object' && !Array.isArray(body) ? ` (got ${Object.keys(body).join(', ')})` : ''}; its one option is the query parameter wait`,
          );
        if (c.req.valid('query').wait === 'true') return c.json(await consolidation.run(bank), 200);
        const outcome = await consolidation.start(bank);
        return outcome.started ? c.json(outcome, 202) : c.json(outcome, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/consolidation/dead-letters',
        tags: ['consolidation'],
        request: { params: BankIdParam },
        responses: {
          200: json(z.object({ deadLetters: z.array(DeadLetterSchema) }), 'Facts that kept failing, with their last error'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        return c.json({ deadLetters: await consolidation.deadLetters(bank) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/consolidation/dead-letters/retry',
        tags: ['consolidation'],
        description: 'Optional JSON body `{"factIds": [...]}` retries only those facts; no body retries all.',
        request: {
          params: BankIdParam,
          // Declared by reference so the document shows it; the handler reads it (an absent body is allowed).
          body: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/DeadLetterRetry' } } },
            required: false,
            description: 'The facts to retry (default: all dead letters)',
          },
        },
        responses: {
          200: json(z.object({ retried: z.number() }), 'Dead letters put back in the queue (all, or the given facts)'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        await engine.requireBank(bank);
        const raw = await optionalBody(c);
        let body: z.infer<typeof RetryBody> = {};
        if (raw !== null) {
          const parsed = RetryBody.safeParse(raw);
          if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues));
          body = parsed.data;
        }
        return c.json({ retried: await consolidation.retryDeadLetters(bank, body.factIds) }, 200);
      },
    );
  };
}
