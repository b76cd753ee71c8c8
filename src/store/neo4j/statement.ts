// A Cypher statement: constant text and its parameters. Statement builders are pure functions (unit-tested
// without a server); values only ever travel as parameters, labels and relationship types are constants.
import neo4j, { type Integer } from 'neo4j-driver';

export type Params = Record<string, unknown>;

export interface Statement {
  text: string;
  params: Params;
}

export const cypher = (text: string, params: Params = {}): Statement => ({ text, params });

/**
 * An integer parameter. The driver sends JS numbers as floats, and LIMIT, SKIP and list slices refuse floats,
 * so counts go through this.
 */
export const int = (n: number): Integer => neo4j.int(Math.max(0, Math.trunc(n)));

/** A Float32Array as a list parameter (Neo4j stores it as a list of floats). */
export const floats = (v: Float32Array): number[] => Array.from(v);
