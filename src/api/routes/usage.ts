// The usage ledger over HTTP: LLM calls of a bank, totals per operation and model over a time range.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Usage } from '../../llm/index.ts';
import { BankIdParam, ErrorSchema, isoTimestamp } from '../schemas.ts';

const UsageQuery = z
  .object({ from: isoTimestamp('from').optional(), to: isoTimestamp('to').optional() })
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

const UsageReportSchema = z
  .object({
    bankId: z.string(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    groups: z.array(Totals.extend({ operation: z.string(), provider: z.string(), model: z.string() })),
    total: Totals,
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
