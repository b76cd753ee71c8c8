// The usage ledger over HTTP: LLM calls of a bank, totals per operation and model over a time range.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import type { UsageLedger } from '../../llm/ledger.ts';
import { BankIdParam, ErrorSchema } from '../schemas.ts';

const isoDate = (field: string) =>
  z.string().refine((v) => !Number.isNaN(Date.parse(v)), { message: `${field} must be an ISO 8601 date` });

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

export function usageRoutes(engine: Engine, ledger: UsageLedger): (app: OpenAPIHono) => void {
  return (app) =>
    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/usage', tags: ['usage'],
        request: { params: BankIdParam, query: z.object({ from: isoDate('from').optional(), to: isoDate('to').optional() }).strict() },
        responses: {
          200: { content: { 'application/json': { schema: UsageReportSchema } }, description: 'LLM usage totals per operation and model' },
          400: { content: { 'application/json': { schema: ErrorSchema } }, description: 'Invalid range' },
          404: { content: { 'application/json': { schema: ErrorSchema } }, description: 'No such bank' },
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        await engine.requireBank(bank);
        const { from, to } = c.req.valid('query');
        const report = await ledger.query({
          bankId: bank,
          from: from ? new Date(from).toISOString() : undefined,
          to: to ? new Date(to).toISOString() : undefined,
        });
        return c.json(report, 200);
      },
    );
}
