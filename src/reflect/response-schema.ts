// The caller's responseSchema (a JSON schema) compiled into a zod schema, so a structured answer is validated
// like every other model reply (and the model is shown zod's complaint when it is off). A schema zod cannot
// read is the caller's mistake: a 400 that says why.
import { z } from 'zod';
import { badRequest } from '../core/index.ts';

export function compileResponseSchema(schema: Record<string, unknown> | undefined): z.ZodType | null {
  if (schema === undefined) return null;
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw badRequest(`responseSchema is not a JSON schema reflect can use: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A structured answer checked against the schema; the problem in words when it does not match. */
export function checkAnswer(schema: z.ZodType, answer: unknown): { ok: true; value: unknown } | { ok: false; problem: string } {
  const parsed = schema.safeParse(answer);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error) };
}
