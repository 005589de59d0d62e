import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../deps.ts'
import { injectApi } from './mcp.api.ts'
import { hostOriginGuard } from './mcp.guard.ts'
import { cacheStash } from './mcp.pages.ts'
import { createMcpServer } from './mcp.server.ts'

/**
 * The MCP tool server over Streamable HTTP, stateless: every POST /mcp gets a fresh server and
 * transport (no session id, nothing kept between requests, any process can answer). GET (a
 * server-to-client event stream) and DELETE (ending a session) have nothing to do without
 * sessions and answer 405, as the transport spec allows.
 *
 * Authentication is the REST API's: `Authorization: Bearer <API key>`, resolved by the app's
 * auth hook. The route itself is `key-free`, so initialize, tools/list and pings do not count
 * against the rate limit; each tool call is made of REST calls (in-process, with the same
 * Authorization header) and those count, bill and log exactly as they would from outside.
 */
export function mcpRoutes(app: FastifyInstance, deps: AppDeps) {
  const guard = hostOriginGuard(deps.config)
  const checkHostAndOrigin = async (req: FastifyRequest) => guard(req.headers.host, req.headers.origin)
  // RFC 6750: a 401 names the scheme it wants.
  const challenge = async (_req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="trawl"')
    return payload
  }
  const schema = { hide: true }

  app.post('/mcp', { config: { auth: 'key-free' }, schema, onRequest: checkHostAndOrigin, onSend: challenge }, async (req, reply) => {
    const auth = req.auth
    const log = req.log
    const server = await createMcpServer({
      api: injectApi(app, req.headers.authorization ?? ''),
      stash: cacheStash(deps.cache, auth.keyId),
      onToolCall: (r) =>
        log.info(
          { tool: r.tool, ms: r.ms, api_request_ids: r.apiRequestIds, key_id: auth.keyId, ...(r.error ? { error_code: r.error.code } : {}) },
          'mcp tool call',
        ),
      onInternalError: (err) => log.error({ err }, 'mcp tool failed unexpectedly'),
    })
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js')
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    reply.raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    // The transport writes the answer itself; headers set so far (request id, CORS) go with it.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
    reply.hijack()
    try {
      await transport.handleRequest(req.raw, reply.raw, req.body)
    } catch (err) {
      log.error({ err }, 'mcp transport failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' })
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }))
      }
    }
  })

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this server is stateless; send JSON-RPC messages with POST /mcp' },
        id: null,
      })
  app.get('/mcp', { schema, onRequest: checkHostAndOrigin }, notAllowed)
  app.delete('/mcp', { schema, onRequest: checkHostAndOrigin }, notAllowed)
}
