import { fetchApi } from './mcp.api.ts'
import { memoryStash } from './mcp.pages.ts'
import { createMcpServer, MCP_SERVER_VERSION, TOOL_DEADLINE_MS } from './mcp.server.ts'

/**
 * `trawl mcp`: the tool server over stdio, for clients that start a local process (Claude
 * Desktop, Cursor, VS Code). A thin client: every tool call is made of REST calls to a Trawl
 * server with an API key, so metering, limits and logs stay on that server. The command finds the
 * server and key as every client command does (TRAWL_URL and TRAWL_API_KEY, else the saved
 * `trawl login`: docs/cli.md). stdout carries only the protocol; anything else goes to stderr.
 */
export async function runMcpStdio(connection: { url: string; key: string }): Promise<void> {
  const server = await createMcpServer({
    api: fetchApi(connection.url, connection.key, { timeoutMs: TOOL_DEADLINE_MS, userAgent: `trawl-mcp-stdio/${MCP_SERVER_VERSION}` }),
    stash: memoryStash(),
    onInternalError: (err) => process.stderr.write(`trawl mcp: ${(err as Error)?.stack ?? String(err)}\n`),
  })
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
  const transport = new StdioServerTransport()
  server.onclose = () => process.exit(0)
  process.stdin.on('end', () => void server.close())
  await server.connect(transport)
}
