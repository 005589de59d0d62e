import { describe, expect, test } from 'vitest'
import { ProxyPools } from '../engines/upstream/proxy-pool.ts'
import { proxyPenaltyShare, type Signal, SignalHub } from './signals.ts'

/** Hubs joined by an in-memory wire that, like Redis and NOTIFY, echoes every message to its sender too. */
function joined(count: number) {
  const hubs: SignalHub[] = []
  const sent: string[] = []
  for (let i = 0; i < count; i++) {
    const hub = new SignalHub('memory', { warn() {} })
    hub.attach({
      send: async (message) => {
        sent.push(message)
        for (const h of hubs) h.receive(message)
      },
      close: async () => {},
    })
    hubs.push(hub)
  }
  return { hubs, sent }
}

describe('SignalHub', () => {
  test('a signal reaches the publishing process at once and every other process once', async () => {
    const { hubs } = joined(3)
    const seen = hubs.map(() => [] as Signal[])
    for (const [i, hub] of hubs.entries()) hub.on('job-queued', (s) => seen[i]!.push(s))
    const sending = hubs[0]!.publish({ type: 'job-queued', kind: 'batch' })
    expect(seen[0]).toEqual([{ type: 'job-queued', kind: 'batch' }]) // before the send completes
    await sending
    expect(seen).toEqual([[{ type: 'job-queued', kind: 'batch' }], [{ type: 'job-queued', kind: 'batch' }], [{ type: 'job-queued', kind: 'batch' }]])
  })

  test('handlers get only their type; unsubscribing stops them', async () => {
    const { hubs } = joined(2)
    const keys: string[] = []
    const off = hubs[1]!.on('key-changed', (s) => keys.push(s.keyId))
    await hubs[0]!.publish({ type: 'crawl-canceled', crawlId: 'c1' })
    await hubs[0]!.publish({ type: 'key-changed', keyId: 'k1' })
    off()
    await hubs[0]!.publish({ type: 'key-changed', keyId: 'k2' })
    expect(keys).toEqual(['k1'])
  })

  test('malformed, unknown or invalid messages are ignored; a throwing handler does not stop the others', () => {
    const hub = new SignalHub('memory', { warn() {} })
    const got: Signal[] = []
    hub.on('key-changed', () => {
      throw new Error('boom')
    })
    hub.on('key-changed', (s) => got.push(s))
    for (const message of ['not json', '{}', JSON.stringify({ o: 'x', s: { type: 'nope' } }), JSON.stringify({ o: 'x', s: { type: 'key-changed' } })]) {
      hub.receive(message)
    }
    expect(got).toEqual([])
    hub.receive(JSON.stringify({ o: 'another-process', s: { type: 'key-changed', keyId: 'k' } }))
    expect(got).toEqual([{ type: 'key-changed', keyId: 'k' }])
  })

  test('a failed send is logged, never thrown; close waits for sends in flight', async () => {
    const warnings: string[] = []
    const hub = new SignalHub('redis', { warn: (_o, msg) => warnings.push(msg) })
    let release = () => {}
    let closed = false
    hub.attach({
      send: (message) =>
        message.includes('slow')
          ? new Promise<void>((resolve) => {
              release = resolve
            })
          : Promise.reject(new Error('down')),
      close: async () => {
        closed = true
      },
    })
    await hub.publish({ type: 'job-queued', kind: 'fails' })
    expect(warnings).toHaveLength(1)
    void hub.publish({ type: 'job-queued', kind: 'slow' })
    const closing = hub.close()
    await Promise.resolve()
    expect(closed).toBe(false)
    release()
    await closing
    expect(closed).toBe(true)
  })
})

describe('proxy cool-downs through signals', () => {
  const pools = [{ name: 'main', urls: ['http://user:secret@10.0.0.1:3128', 'http://10.0.0.2:3128'] }]

  test("a proxy penalised in one process is rested in the other, and its recovery clears it there; the URL's credentials never travel", async () => {
    const now = 1_000_000
    const { hubs, sent } = joined(2)
    const first = new ProxyPools(pools, { baseMs: 30_000, maxMs: 600_000 }, () => now, proxyPenaltyShare(hubs[0]!))
    const second = new ProxyPools(pools, { baseMs: 30_000, maxMs: 600_000 }, () => now, proxyPenaltyShare(hubs[1]!))
    const route = first.pick('google', new Set(), 2)!
    expect(route.label).toBe('10.0.0.1:3128')
    first.report(route, 'google', 'timeout', true)
    first.report(first.pick('google', new Set(), 2)!, 'bing', 'blocked', true)
    await Promise.resolve()
    const health = second.health()
    expect(health.map((h) => [h.proxy, h.healthy, h.coolingUntil, h.blockedBy])).toEqual([
      ['10.0.0.1:3128', false, new Date(now + 30_000).toISOString(), {}],
      ['10.0.0.2:3128', true, null, { bing: new Date(now + 30_000).toISOString() }],
    ])
    // The second process now skips both for bing, and the first for every engine.
    expect(second.pick('bing', new Set(), 2)).toBeNull()
    expect(second.pick('google', new Set(), 2)?.label).toBe('10.0.0.2:3128')
    expect(sent.join('\n')).not.toContain('secret')
    expect(sent.join('\n')).not.toContain('10.0.0.1')

    first.report(route, 'google', 'ok', true)
    await Promise.resolve()
    expect(second.health()[0]).toMatchObject({ healthy: true, coolingUntil: null, consecutiveFailures: 0 })
  })
})
