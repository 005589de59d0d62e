import { fetchApi } from './mcp.api.ts'
import { memoryStash } from './mcp.pages.ts'
import { createMcpServer, MCP_SERVER_VERSION, TOOL_DEADLINE_MS } from './mcp.server.ts'

export const DEFAULT_TRAWL_URL = 'http://127.0.0.1:8080'

/**
 * `trawl mcp`: the tool server over stdio, for clients that start a local process (Claude
 * Desktop, Cursor, VS Code). A thin client: every tool call is made of REST calls to the Trawl
 * server at TRAWL_URL with TRAWL_API_KEY, so metering, limits and logs stay on that server.
 * stdout carries only the protocol; anything else goes to stderr.
 */
export async function runMcpStdio(env: Record<string, string | undefined>): Promise<void> {
  const key = env.TRAWL_API_KEY?.trim()
  const url = (env.TRAWL_URL?.trim() || DEFAULT_TRAWL_URL).replace(/\/+$/, '')
  if (!key) throw new McpStdioConfigError('TRAWL_API_KEY is required: the API key tool calls are billed to (trawl_live_…)')
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new McpStdioConfigError(`TRAWL_URL must be the http(s) address of a Trawl server, e.g. ${DEFAULT_TRAWL_URL}`)
  }
  const server = await createMcpServer({
    api: fetchApi(url, key, { timeoutMs: TOOL_DEADLINE_MS, userAgent: `trawl-mcp-stdio/${MCP_SERVER_VERSION}` }),
    stash: memoryStash(),
    onInternalError: (err) => process.stderr.write(`trawl mcp: ${(err as Error)?.stack ?? String(err)}\n`),
  })
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
  const transport = new StdioServerTransport()
  server.onclose = () => process.exit(0)
  process.stdin.on('end', () => void server.close())
  await server.connect(transport)
}

/** A missing or malformed setting: said on stderr, exit code 2. */
export class McpStdioConfigError extends Error {}
