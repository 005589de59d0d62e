import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PRIVATE_ADDRESS_MESSAGE } from '../src/net/address-policy.ts'
import { type LocalSite, startLocalSite, startTunnelProxy, type TunnelProxy } from './support/reading-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Without TRAWL_ALLOW_PRIVATE_NETWORK, page reading must refuse every way of naming this machine
 * or a private network, including through a redirect, before a single request reaches the site.
 */

let trawl: Trawl
let site: LocalSite
let proxy: TunnelProxy
let redirectTarget = ''

/**
 * A "public" first hop without leaving the machine: `country: us` sends the read through a local
 * CONNECT proxy, which answers a tunnel to [4000::1] (public unicast to the address check, outside
 * the allocated 2000::/3 range, never dialled) from an in-process stand-in site whose /hop redirects.
 */
const PUBLIC_STAND_IN = 'http://[4000::1]'

beforeAll(async () => {
  site = await startLocalSite()
  proxy = await startTunnelProxy(() => redirectTarget)
  trawl = await startTrawl({ TRAWL_PROXY_POOLS: `us=${proxy.url}` })
})
afterAll(async () => {
  await trawl?.close()
  await proxy?.close()
  await site?.close()
})

const post = (key: string, path: string, body: unknown) =>
  fetch(`${trawl.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function balanceOf(key: string): Promise<number> {
  return (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance
}

/** Every spelling of loopback/unspecified; distinct paths keep them apart after URL normalisation. */
const PRIVATE_FORMS = (port: number) => [
  `http://127.0.0.1:${port}/a1`,
  `http://localhost:${port}/a2`,
  `http://[::1]:${port}/a3`,
  `http://2130706433:${port}/a4`,
  `http://0x7f000001:${port}/a5`,
  `http://0177.0.0.1:${port}/a6`,
  `http://127.1:${port}/a7`,
  `http://[::ffff:127.0.0.1]:${port}/a8`,
  `http://0.0.0.0:${port}/a9`,
]

describe('page reading without TRAWL_ALLOW_PRIVATE_NETWORK', () => {
  test('extract: every private address form fails as invalid_request in failed[]; nothing billed, nothing sent', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 20 })
    const urls = PRIVATE_FORMS(site.port)
    const res = await post(key, '/v1/extract', { urls })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results).toEqual([])
    expect(body.failed).toHaveLength(urls.length)
    for (const f of body.failed) expect(f.error).toEqual({ code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE })
    expect(body.meta).toMatchObject({ credits_used: 0, succeeded: 0, failed: urls.length })
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await balanceOf(key)).toBe(20)
    expect(site.seen).toEqual([])
  })

  test('MCP extract of private addresses only: every URL in failed[] as REST lists it, no tool error, nothing billed', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 20 })
    const client = new Client({ name: 'trawl-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${trawl.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    try {
      const urls = PRIVATE_FORMS(site.port)
      const result = (await client.callTool({ name: 'extract', arguments: { urls } })) as CallToolResult
      expect(result.isError).toBeFalsy()
      const out = result.structuredContent as { pages: unknown[]; failed: { url: string; error: unknown }[]; succeeded: number; credits_used: number }
      expect(out).toMatchObject({ pages: [], succeeded: 0, credits_used: 0 })
      expect(out.failed).toHaveLength(urls.length)
      for (const f of out.failed) expect(f.error).toEqual({ code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE })
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
      expect(text).toContain('Could not read (not billed)')
      expect(await balanceOf(key)).toBe(20)
      expect(site.seen).toEqual([])
    } finally {
      await client.close()
    }
  })

  test.each(PRIVATE_FORMS(0).map((u) => [u]))('webpage %s is 400 invalid_request, not billed', async (pattern) => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 2 })
    const res = await post(key, '/v1/webpage', { url: pattern.replace(':0/', `:${site.port}/`) })
    const body = await res.json()
    expect(res.status).toBe(400)
    expect(body.error).toMatchObject({ code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE, request_id: res.headers.get('x-request-id') })
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await balanceOf(key)).toBe(2)
    expect(site.seen).toEqual([])
  })

  test.each([
    'http://127.0.0.1:PORT/article/ars',
    'http://localhost:PORT/article/ars',
    'http://[::ffff:7f00:1]:PORT/article/ars',
    'http://[::127.0.0.1]:PORT/article/ars',
    'http://2130706433:PORT/article/ars',
  ])('a public page redirecting to %s fails cleanly (extract failed[], webpage 400)', async (target) => {
    redirectTarget = target.replace('PORT', String(site.port))
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 5 })
    const before = proxy.publicSeen.length
    const res = await post(key, '/v1/extract', { urls: [`${PUBLIC_STAND_IN}/hop`], country: 'us' })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.failed).toEqual([{ url: `${PUBLIC_STAND_IN}/hop`, error: { code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE } }])
    expect(res.headers.get('x-credits-used')).toBe('0')
    const one = await post(key, '/v1/webpage', { url: `${PUBLIC_STAND_IN}/hop`, country: 'us' })
    expect(one.status).toBe(400)
    expect((await one.json()).error).toMatchObject({ code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE })
    // The first hop really happened (so the refusal is the redirect check), the site never heard a thing.
    expect(proxy.publicSeen.slice(before)).toEqual(['/hop', '/hop'])
    expect(proxy.tunnels.every((t) => t === '[4000::1]:80')).toBe(true)
    expect(site.seen).toEqual([])
    expect(await balanceOf(key)).toBe(5)
  })

  /**
   * IPv6 addresses that embed a loopback IPv4 address. Sent through the local CONNECT proxy
   * (`country: us`), so a form the guard let pass would reach the stand-in site, never the network.
   */
  test.each([
    'http://[::127.0.0.1]/e1', // IPv4-compatible: the URL parser writes it [::7f00:1]
    'http://[::ffff:0:127.0.0.1]/e2', // IPv4-translated
    'http://[64:ff9b::127.0.0.1]/e3', // NAT64
    'http://[64:ff9b:1::808:808]/e4', // NAT64 local use
    'http://[2002:7f00:1::1]/e5', // 6to4
    'http://[2001:0:808:808::80ff:fffe]/e6', // Teredo, client 127.0.0.1
  ])('%s is refused as a private address before any connection', async (url) => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 5 })
    const tunnelsBefore = proxy.tunnels.length
    const seenBefore = proxy.publicSeen.length
    const one = await post(key, '/v1/webpage', { url, country: 'us' })
    expect(one.status).toBe(400)
    expect((await one.json()).error).toMatchObject({ code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE })
    const many = await post(key, '/v1/extract', { urls: [url], country: 'us' })
    expect(many.status).toBe(200)
    expect((await many.json()).failed).toEqual([{ url: expect.any(String), error: { code: 'invalid_request', message: PRIVATE_ADDRESS_MESSAGE } }])
    expect(proxy.tunnels.length).toBe(tunnelsBefore)
    expect(proxy.publicSeen.length).toBe(seenBefore)
    expect(await balanceOf(key)).toBe(5)
  })

  test('a proxy exit does not open a way around the guard', async () => {
    const { key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 5 })
    const tunnelsBefore = proxy.tunnels.length
    const res = await post(key, '/v1/webpage', { url: `http://127.0.0.1:${site.port}/article/ars`, country: 'us' })
    expect(res.status).toBe(400)
    expect(proxy.tunnels.length).toBe(tunnelsBefore)
    expect(site.seen).toEqual([])
  })
})
