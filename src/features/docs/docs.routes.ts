import { readFileSync } from 'node:fs'
import type { ApiReferenceConfiguration } from '@scalar/fastify-api-reference'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type InjectOptions } from 'fastify'
import { srcFile } from '../../paths.ts'

/** Scalar's reference, configured to load nothing but this server: no fonts, telemetry or hosted services. */
const REFERENCE: Partial<ApiReferenceConfiguration> = {
  url: '/v1/openapi.json',
  pageTitle: 'Trawl API reference',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  operationTitleSource: 'summary',
  // Every operation carries curl, JavaScript and Python samples (x-codeSamples); Scalar's own
  // generated clients would repeat them.
  hiddenClients: true,
  defaultOpenAllTags: false,
  favicon: '/favicon.svg',
  // Scalar scrolls wide code blocks (the guide's curl lines, the code samples, the example answers)
  // sideways with the scrollbar hidden, so they look cut off at the column's edge: wrap them
  // instead (!important: Scalar's own rules are more specific). Copying gives the lines as written.
  customCss: `.markdown pre code, .markdown pre code *, .scalar-code-block pre, .scalar-code-block pre * {
  white-space: pre-wrap !important;
  overflow-wrap: anywhere !important;
}`,
}

/** The dashboard's icon (one drawing): the SVG as is, and favicon.ico made from it by favicon.make.ts. */
const ICONS = {
  '/favicon.svg': { file: 'features/dashboard/app/favicon.svg', type: 'image/svg+xml' },
  '/favicon.ico': { file: 'features/docs/favicon.ico', type: 'image/x-icon' },
}

/**
 * /v1/openapi.json (generated from the routes' zod schemas; see openapi.document.ts), the
 * reference for people at /docs (Scalar, its script served from node_modules by its Fastify
 * plugin), / pointing to it unless the dashboard lives there, and /favicon.ico and /favicon.svg.
 *
 * Scalar's plugin holds about 20 MB of script text from the moment it is loaded: it is loaded at
 * the first visit to /docs, in a Fastify instance of its own that the /docs routes forward to.
 */
export function docsRoutes(app: FastifyInstance) {
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  // A dashboard mounted at the site's root (TRAWL_APP_URL with no path, registered before) keeps /.
  if (!app.hasRoute({ method: 'GET', url: '/' })) app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/docs', 302))
  let reference: Promise<FastifyInstance> | undefined
  const forward = async (req: FastifyRequest, reply: FastifyReply) => {
    reference ??= referenceApp().catch((err) => {
      reference = undefined
      throw err
    })
    const res = await (await reference).inject({ method: req.method as InjectOptions['method'], url: req.url, headers: req.headers })
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value)
    }
    return reply.code(res.statusCode).send(res.rawPayload.length > 0 ? res.rawPayload : undefined)
  }
  const options = { schema: { hide: true }, onRequest: pageHeaders(app), logLevel: 'warn' as const }
  app.get('/docs', options, forward)
  app.get('/docs/*', options, forward)
  for (const [url, icon] of Object.entries(ICONS)) {
    let body: Buffer | undefined
    app.get(url, { schema: { hide: true }, logLevel: 'warn' }, async (_req, reply) => {
      body ??= readFileSync(srcFile(icon.file))
      return reply.type(icon.type).header('cache-control', 'public, max-age=86400').send(body)
    })
  }
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length'])

async function referenceApp(): Promise<FastifyInstance> {
  const { default: scalarReference } = await import('@scalar/fastify-api-reference')
  const reference = Fastify({ logger: false })
  await reference.register(scalarReference, { routePrefix: '/docs', configuration: REFERENCE })
  await reference.ready()
  return reference
}

/**
 * The page may load scripts, styles and fonts from this server only, so an offline install works
 * and nothing leaves the browser; requests made with "Send" may also go to the document's server.
 */
function pageHeaders(app: FastifyInstance) {
  let policy: string | undefined
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.url.endsWith('.js')) {
      reply.header('cache-control', 'public, max-age=86400')
      return
    }
    policy ??= contentSecurityPolicy(app)
    reply.header('content-security-policy', policy)
  }
}

function contentSecurityPolicy(app: FastifyInstance): string {
  const servers = ((app.swagger() as { servers?: { url: string }[] }).servers ?? []).map((s) => new URL(s.url).origin)
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${servers.join(' ')}`.trim(),
    "frame-ancestors 'self'",
  ].join('; ')
}
