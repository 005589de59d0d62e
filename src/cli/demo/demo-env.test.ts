import { expect, test } from 'vitest'
import { loadConfig } from '../../config.ts'
import { demoEnv } from './demo.ts'

test("the demo drops what would reach outside, proxies and their engines together: an operator's setup still starts it", () => {
  const env = demoEnv(
    { TRAWL_PROXY_POOLS: 'resi=http://proxy.example:3128', TRAWL_PROXY_ENGINES: 'google=resi;searxng=direct', TRAWL_LOG_LEVEL: 'warn' },
    '/tmp/demo.db',
    'http://127.0.0.1:9',
  )
  expect(env).toEqual({ TRAWL_LOG_LEVEL: 'warn', TRAWL_DATABASE_URL: 'sqlite:/tmp/demo.db', TRAWL_UPSTREAM_HOSTS: '*=http://127.0.0.1:9' })
  const config = loadConfig(env)
  expect(config.proxyPools).toEqual([])
  expect(config.proxyEngines).toEqual({})
})
