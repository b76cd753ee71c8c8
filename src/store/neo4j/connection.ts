// A Neo4j connection: one driver (integers come back as JS numbers), the database to use, and helpers that run
// parameterized statements in managed transactions, which the driver retries on transient errors (deadlocks,
// leader changes). Every statement is a constant text plus parameters; nothing from input is spliced into it.
import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import type { Statement } from './statement.ts';

export interface Neo4jOptions {
  uri: string;
  user: string;
  password: string;
  /** Database name (default: the server's default database). */
  database?: string;
}

export type Row = Record<string, unknown>;

/** Runs statements inside one transaction. */
export interface Tx {
  run(statement: Statement): Promise<Row[]>;
}

function txOf(tx: ManagedTransaction): Tx {
  return {
    async run(s: Statement): Promise<Row[]> {
      const result = await tx.run(s.text, s.params);
      return result.records.map((r) => r.toObject() as Row);
    },
  };
}

export class Neo4jConnection {
  readonly driver: Driver;
  readonly database: string | undefined;

  constructor(options: Neo4jOptions) {
    this.driver = neo4j.driver(options.uri, neo4j.auth.basic(options.user, options.password), {
      disableLosslessIntegers: true,
      maxConnectionPoolSize: 50,
    });
    this.database = options.database;
  }

  /** Fails fast with the driver's message when the server cannot be reached or refuses the credentials. */
  async verify(): Promise<void> {
    await this.driver.verifyConnectivity(this.database ? { database: this.database } : undefined);
  }

  /** One statement in a read transaction. */
  async read(s: Statement): Promise<Row[]> {
    return this.readTx((tx) => tx.run(s));
  }

  /** One statement in a write transaction. */
  async write(s: Statement): Promise<Row[]> {
    return this.writeTx((tx) => tx.run(s));
  }

  async readTx<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    try {
      return await session.executeRead((tx) => work(txOf(tx)));
    } finally {
      await session.close();
    }
  }

  /** A write transaction: all of `work` commits or none of it (a thrown error rolls it back). */
  async writeTx<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      return await session.executeWrite((tx) => work(txOf(tx)));
    } finally {
      await session.close();
    }
  }

  /** An auto-commit statement (schema commands cannot share a transaction with data writes). */
  async autoCommit(s: Statement): Promise<Row[]> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      const result = await session.run(s.text, s.params);
      return result.records.map((r) => r.toObject() as Row);
    } finally {
      await session.close();
    }
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}
