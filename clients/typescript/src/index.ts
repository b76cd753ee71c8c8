// @cairn-memory/client: a typed client for Cairn's HTTP API (client.ts over the generated schema.ts).
export * from './client.ts';
export type { components, paths } from './schema.ts';
