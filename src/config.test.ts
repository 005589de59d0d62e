import { describe, expect, test } from 'vitest'
import { loadConfig } from './config.ts'

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env)
  } catch (e) {
    return (e as Error).message
  }
  throw new Error('loadConfig accepted the configuration')
}

describe('loadConfig names every bad variable at once', () => {
  test('a bad port and a bad upstream host map: both named', () => {
    const message = problems({ TRAWL_PORT: 'eighty', TRAWL_UPSTREAM_HOSTS: 'nohost' })
    expect(message).toMatch(/^invalid configuration:/)
    expect(message).toContain('TRAWL_PORT')
    expect(message).toContain('TRAWL_UPSTREAM_HOSTS: "nohost" is not host=baseURL')
  })

  test('schema problems, the host map and the proxy pools together, one line each', () => {
    const message = problems({
      TRAWL_DATABASE_URL: 'mysql://x',
      TRAWL_ADMIN_TOKEN: 'short',
      TRAWL_UPSTREAM_HOSTS: 'www.google.com=ftp://x',
      TRAWL_PROXY_POOLS: 'main=socks://p:1080',
    })
    const lines = message.split('\n').slice(1)
    expect(lines.map((l) => l.trim().split(':')[0]).sort()).toEqual(['TRAWL_ADMIN_TOKEN', 'TRAWL_DATABASE_URL', 'TRAWL_PROXY_POOLS', 'TRAWL_UPSTREAM_HOSTS'])
  })

  test('each bad value is shown beside its variable, except secrets', () => {
    const message = problems({ TRAWL_PORT: 'abc', TRAWL_ADMIN_TOKEN: 'short-secret' })
    expect(message).toMatch(/TRAWL_PORT: .* \(got "abc"\)/)
    expect(message).toMatch(/TRAWL_ADMIN_TOKEN: .* \(value not shown\)/)
    expect(message).not.toContain('short-secret')
  })

  test('the lists alone, with everything else valid', () => {
    const message = problems({ TRAWL_UPSTREAM_HOSTS: '=http://x', TRAWL_PROXY_POOLS: 'empty=' })
    expect(message).toContain('TRAWL_UPSTREAM_HOSTS')
    expect(message).toContain('TRAWL_PROXY_POOLS: pool "empty" has no proxies')
  })

  test('good lists still parse', () => {
    const config = loadConfig({
      TRAWL_UPSTREAM_HOSTS: 'WWW.Google.com=http://127.0.0.1:9101/,*=http://127.0.0.1:9102',
      TRAWL_PROXY_POOLS: 'main=http://p1:3128',
    })
    expect([...config.upstreamHosts]).toEqual([
      ['www.google.com', 'http://127.0.0.1:9101'],
      ['*', 'http://127.0.0.1:9102'],
    ])
    expect(config.proxyPools).toEqual([{ name: 'main', urls: ['http://p1:3128'] }])
  })

  test('TRAWL_PROXY_ENGINES: pools per engine, or direct; a pool not defined, a mixed direct or a twice-listed engine stop start-up', () => {
    const pools = 'main=http://p1:3128;resi=http://p2:3128'
    const config = loadConfig({ TRAWL_PROXY_POOLS: pools, TRAWL_PROXY_ENGINES: ' SearXNG = direct ; google=resi,main' })
    expect(config.proxyEngines).toEqual({ searxng: [], google: ['resi', 'main'] })
    expect(loadConfig({}).proxyEngines).toEqual({})
    const bad = (value: string) => problems({ TRAWL_PROXY_POOLS: pools, TRAWL_PROXY_ENGINES: value })
    expect(bad('google=dc')).toContain('TRAWL_PROXY_ENGINES: engine "google" names pool "dc", which TRAWL_PROXY_POOLS does not define')
    expect(bad('google=direct,main')).toContain('direct is a route of its own')
    expect(bad('google=main;google=resi')).toContain('engine "google" is listed twice')
    expect(bad('google')).toContain('"google" is not engine=pool[,pool...] or engine=direct')
  })
})
