// Cairn over the Model Context Protocol: tools and resources (server.ts, tools.ts) served over streamable HTTP by
// `cairn serve` (http.ts) and over stdio by `cairn mcp`.
export { mcpRoutes, type McpRouteOptions } from './http.ts';
export { connectMcp, createMcpServer, type McpServerOptions, type RestFetch } from './server.ts';
export { TOOLS, type ToolRecipe } from './tools.ts';
