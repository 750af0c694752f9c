/** What other parts of the application may use from the MCP context. */
export { McpModule } from './mcp.module.js';
export { McpTools } from './application/mcp-tools.js';
export { MCP_ERRORS } from './errors.js';
