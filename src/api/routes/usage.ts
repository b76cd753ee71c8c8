// The usage ledger over HTTP: LLM calls of a bank, totals per operation and model over a time range, and per hour
// or day of it when asked.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { type Usage, USAGE_BUCKETS } from '../../llm/index.ts';
import { BankIdParam, ErrorSchema, isoTimestamp } from '../schemas.ts';

const UsageQuery = z
  .object({
    from: isoTimestamp('from').optional(),
    to: isoTimestamp('to').optional(),
    bucket: z
      .enum(USAGE_BUCKETS)
      .optional()
      .openapi({ description: 'Also total per UTC hour or day of the range: the report then has `series`' }),
  })
  .strict()
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] });

const Totals = z.object({
  calls: z.number(),
  failures: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedTokens: z.number(),
  costUsd: z.number(),
  latencyMs: z.number(),
});

const Group = Totals.extend({ operation: z.string(), provider: z.string(), model: z.string() });

const UsageReportSchema = z
  .object({
    bankId: z.string(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    groups: z.array(Group),
    total: Totals,
    series: z
      .array(Group.extend({ start: z.string().openapi({ description: 'Start of the hour or day (UTC, ISO 8601)' }) }))
      .optional()
      .openapi({
        description:
          'Only with ?bucket= (absent otherwise): totals per bucket, operation, provider and model, ordered by start, operation, ' +
          'model, provider; buckets without calls are left out',
      }),
  })
  .openapi('UsageReport');

export function usageRoutes(usage: Usage): (app: OpenAPIHono) => void {
  return (app) =>
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/usage',
        tags: ['usage'],
        request: { params: BankIdParam, query: UsageQuery },
        responses: {
          200: { content: { 'application/json': { schema: UsageReportSchema } }, description: 'LLM usage totals per operation and model' },
          400: { content: { 'application/json': { schema: ErrorSchema } }, description: 'Invalid range' },
          404: { content: { 'application/json': { schema: ErrorSchema } }, description: 'No such bank' },
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        return c.json(await usage.report(bank, c.req.valid('query')), 200);
      },
    );
}
