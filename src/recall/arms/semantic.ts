// The semantic arm: k-NN over the bank's fact vectors with the query's embedding, under the request's filter.
import type { ArmContext, ArmOutput } from './context.ts';

export async function semanticArm(ctx: ArmContext, queryVector: Promise<Float32Array>): Promise<ArmOutput> {
  const { store, bankId, request } = ctx;
  const vector = await queryVector;
  const hits = await store.vectors.search(bankId, vector, request.settings.candidatesPerArm, request.filter);
  return { hits };
}
