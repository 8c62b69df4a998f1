// The MCP Streamable HTTP server's public entry; its parts live in http/ (server.ts wires them).
export { isLoopback, SESSION_TOKEN_HEADER } from './http/guard.js';
export { type McpHttpOptions, type McpHttpServer, startMcpHttpServer } from './http/server.js';
