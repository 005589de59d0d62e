import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../config.ts'
import { createEngines, engineOptionsOf } from '../../engines/registry.ts'
import { createUpstreamClient } from '../../engines/upstream/upstream-client.ts'
import { createRenderer } from '../../net/browser/renderer.ts'
import { type CheckResponse, checkEngines } from './engines.check.ts'

/**
 * `trawl engines check`: the live self-test in this process, with the server's configuration
 * (proxies, upstream mapping, browser, API keys) but no database: nothing is billed or stored.
 */
export async function checkEnginesHere(body: Parameters<typeof checkEngines>[1]): Promise<CheckResponse> {
  const config = loadConfig()
  const renderer = createRenderer(config)
  const upstream = createUpstreamClient(config, { browser: renderer })
  // Reviews page tokens are never minted by a check (reviews need a place id): any secret does.
  const engines = createEngines(upstream, { ...engineOptionsOf(config), reviewsTokenSecret: randomBytes(32).toString('hex') })
  try {
    return await checkEngines(engines, body, upstream.gateStats)
  } finally {
    await Promise.all([upstream.close(), renderer.close()])
  }
}
