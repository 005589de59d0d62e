import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../../deps.ts'
import { ApiError } from '../../errors.ts'
import { srcFile } from '../../paths.ts'
import { dashboardPaths } from './dashboard.http.ts'

/**
 * Serves the dashboard web app (docs/dashboard.md): no-build ES modules from ./app and Preact, its
 * hooks and htm straight from node_modules, all read and gzipped once at start. Assets live under
 * `<app>/assets/<version>/…`, the version a hash of every file, so they are cached for a year and a
 * new release is a new URL; index.html (no-cache) is answered for every other app path, so the
 * client-side router owns them. `<app>/api/*` is never the page: unknown API paths are 404 JSON.
 */

const APP_DIR = fileURLToPath(srcFile('features/dashboard/app/'))
const require = createRequire(srcFile('features/dashboard/'))

/** A package's folder: from its main entry up to its package.json (htm does not export ./package.json). */
function packageDir(name: string): string {
  let dir = dirname(require.resolve(name))
  while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== name) {
    const up = dirname(dir)
    if (up === dir) throw new Error(`cannot find the folder of package ${name}`)
    dir = up
  }
  return dir
}

/** Vendor modules, named in the import map of index.html. */
const VENDOR: Record<string, { pkg: string; file: string; specifier: string }> = {
  'vendor/preact.mjs': { pkg: 'preact', file: 'dist/preact.mjs', specifier: 'preact' },
  'vendor/preact-hooks.mjs': { pkg: 'preact', file: 'hooks/dist/hooks.mjs', specifier: 'preact/hooks' },
  'vendor/htm.mjs': { pkg: 'htm', file: 'dist/htm.module.js', specifier: 'htm' },
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
}

interface Asset {
  body: Buffer
  gzip: Buffer | null
  type: string
  etag: string
}

function asset(name: string, body: Buffer): Asset {
  const ext = name.slice(name.lastIndexOf('.'))
  const type = TYPES[ext] ?? 'application/octet-stream'
  const gzip = type.startsWith('image/png') ? null : gzipSync(body, { level: 9 })
  return { body, gzip: gzip && gzip.length < body.length ? gzip : null, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? walk(full) : [full]
  })
}

export function loadAppAssets() {
  const assets = new Map<string, Asset>()
  for (const full of walk(APP_DIR)) {
    const name = relative(APP_DIR, full).split(sep).join('/')
    if (name === 'index.html') continue
    assets.set(name, asset(name, readFileSync(full)))
  }
  for (const [name, v] of Object.entries(VENDOR)) {
    // Drop the source-map comment: the maps are not served.
    const text = readFileSync(join(packageDir(v.pkg), v.file), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n')
    assets.set(name, asset(name, Buffer.from(text)))
  }
  const hash = createHash('sha256')
  // Code-unit order: localeCompare would page in ICU's collation data (about 2 MB) for a hash.
  for (const [name, a] of [...assets].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) hash.update(name).update(a.etag)
  return { assets, version: hash.digest('hex').slice(0, 12), template: readFileSync(join(APP_DIR, 'index.html'), 'utf8') }
}

/** Where index.html's import map goes: valid JSON as written, so the file stays well-formed for linters. */
const IMPORT_MAP_SLOT = '<script type="importmap">{ "imports": {} }</script>'
const PRELOAD_SLOT = '<!-- modulepreload: every module, so the browser fetches them in parallel -->'

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')

export function dashboardAppRoutes(app: FastifyInstance, services: Pick<Services, 'config'>) {
  const paths = dashboardPaths(services.config.appUrl)
  const { assets, version, template } = loadAppAssets()
  const assetBase = `${paths.app}/assets/${version}`
  const importMap = JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR).map(([name, v]) => [v.specifier, `${assetBase}/${name}`])) })
  const importMapHash = createHash('sha256').update(importMap).digest('base64')
  // Every module announced up front: one round of parallel requests instead of one per import level.
  const preloads = [...assets.keys()]
    .filter((name) => /\.m?js$/.test(name))
    .map((name) => `<link rel="modulepreload" href="${assetBase}/${name}" />`)
    .join('\n    ')
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${importMapHash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
  const configured = new URL(services.config.baseUrl)
  for (const slot of [IMPORT_MAP_SLOT, PRELOAD_SLOT]) if (!template.includes(slot)) throw new Error(`dashboard index.html lost its slot ${slot}`)

  const sendIndex = (req: FastifyRequest, reply: FastifyReply) => {
    // With TRAWL_PORT=0 (tests) the configured base has no real port: the snippets use the one the browser reached.
    const base = configured.port === '0' && req.headers.host ? `${req.protocol}://${req.headers.host}` : services.config.baseUrl
    const html = template
      .replace(IMPORT_MAP_SLOT, `<script type="importmap">${importMap}</script>`)
      .replace(PRELOAD_SLOT, preloads)
      .replaceAll('%ASSETS%', escapeAttr(assetBase))
      .replaceAll('%APP%', escapeAttr(paths.app))
      .replaceAll('%API%', escapeAttr(paths.api))
      .replaceAll('%BASE%', escapeAttr(base))
      // The sign-in screen offers sign-up only when POST {app}/api/v1/signup is open.
      .replaceAll('%SIGNUP%', services.config.signupOpen ? 'open' : 'closed')
    return reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(html)
  }

  app.get(`${paths.app}/assets/:version/*`, { schema: { hide: true } }, async (req, reply) => {
    const params = req.params as { version: string; '*': string }
    const found = assets.get(params['*'])
    if (!found) throw new ApiError('not_found', `no dashboard asset ${params['*']}`)
    // An older page asking for its version gets today's file, but must not keep it for a year.
    reply.header('cache-control', params.version === version ? 'public, max-age=31536000, immutable' : 'no-cache')
    reply.header('etag', found.etag).header('vary', 'accept-encoding').header('x-content-type-options', 'nosniff').type(found.type)
    if (req.headers['if-none-match'] === found.etag) return reply.code(304).send()
    if (found.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(found.gzip)
    return reply.send(found.body)
  })

  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? ''
    const under = (p: string) => path === p || path.startsWith(`${p}/`)
    if (under(paths.api) || under(`${paths.app}/assets`)) throw new ApiError('not_found', `no route ${req.method} ${path}`)
    // Mounted at the site's root, the app answers only page loads, so unknown API paths stay JSON 404s.
    if (!paths.app && !String(req.headers.accept ?? '').includes('text/html')) throw new ApiError('not_found', `no route ${req.method} ${path}`)
    return sendIndex(req, reply)
  }
  app.get(paths.app || '/', { schema: { hide: true } }, page)
  app.get(`${paths.app}/*`, { schema: { hide: true } }, page)
}
