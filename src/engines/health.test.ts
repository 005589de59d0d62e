import { describe, expect, it } from 'vitest'
import { EngineHealth } from './health.ts'

function clock() {
  let t = 1_000_000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('EngineHealth', () => {
  it('a block makes a provider unavailable until the cool-down passes, then one probe decides', () => {
    const c = clock()
    const h = new EngineHealth({ cooldownMs: 1000, now: c.now })
    h.record('bing', 'search', { outcome: 'ok', ms: 100, quality: 'ok' })
    expect(h.available('bing', 'search')).toBe(true)
    h.record('bing', 'search', { outcome: 'blocked', ms: 50 })
    expect(h.state('bing', 'search')).toBe('blocked')
    expect(h.available('bing', 'search')).toBe(false)
    c.advance(1000)
    expect(h.available('bing', 'search')).toBe(true) // the probe
    h.record('bing', 'search', { outcome: 'blocked', ms: 50 })
    expect(h.available('bing', 'search')).toBe(false) // a failed probe restarts the cool-down
    c.advance(1000)
    h.record('bing', 'search', { outcome: 'ok', ms: 80, quality: 'ok' })
    expect(h.state('bing', 'search')).toBe('healthy')
    expect(h.available('bing', 'search')).toBe(true)
  })

  it('answers that can no longer be read, after clean ones, are drift; a clean probe recovers', () => {
    const c = clock()
    const h = new EngineHealth({ cooldownMs: 500, now: c.now })
    for (let i = 0; i < 20; i++) h.record('google', 'search', { outcome: 'ok', ms: 200, quality: 'ok' })
    for (let i = 0; i < 3; i++) h.record('google', 'search', { outcome: 'ok', ms: 200, quality: 'partial' })
    expect(h.state('google', 'search')).toBe('healthy') // a few odd pages are not a layout change
    for (let i = 0; i < 4; i++) h.record('google', 'search', { outcome: 'ok', ms: 200, quality: i % 2 ? 'empty' : 'partial' })
    expect(h.state('google', 'search')).toBe('drifting')
    expect(h.available('google', 'search')).toBe(false)
    expect(h.available('google', 'news')).toBe(true) // per layout
    c.advance(500)
    h.record('google', 'search', { outcome: 'ok', ms: 200, quality: 'ok' })
    expect(h.state('google', 'search')).toBe('healthy')
  })

  it('a provider that always answered empty pages is not drifting: nothing rose', () => {
    const h = new EngineHealth({ cooldownMs: 500 })
    for (let i = 0; i < 30; i++) h.record('wikipedia', 'search', { outcome: 'ok', ms: 20, quality: i % 3 ? 'ok' : 'empty' })
    expect(h.state('wikipedia', 'search')).toBe('healthy')
  })

  it('timeouts and errors make a provider degraded; figures report rates and latency', () => {
    const h = new EngineHealth({ cooldownMs: 500 })
    for (const ms of [100, 200, 300]) h.record('mojeek', 'search', { outcome: 'ok', ms, quality: 'ok' })
    h.record('mojeek', 'search', { outcome: 'timeout', ms: 5000 })
    h.record('mojeek', 'search', { outcome: 'error', ms: 10 })
    expect(h.state('mojeek', 'search')).toBe('degraded')
    const [layout] = h.layouts('mojeek')
    expect(layout).toMatchObject({
      layout: 'search',
      state: 'degraded',
      requests: 5,
      timeout_rate: 0.2,
      error_rate: 0.2,
      block_rate: 0,
      p50_ms: 200,
      p95_ms: 5000,
    })
  })

  it('shares events through a HealthShare and takes other processes’ windows on refresh', async () => {
    const lists = new Map<string, unknown[]>()
    const share = {
      push: (key: string, e: unknown) => lists.set(key, [...(lists.get(key) ?? []), e]),
      pull: async () => lists as never,
    }
    const a = new EngineHealth({ cooldownMs: 1000, share })
    const b = new EngineHealth({ cooldownMs: 1000, share })
    a.record('brave', 'search', { outcome: 'blocked', ms: 30 })
    expect(b.available('brave', 'search')).toBe(true)
    await b.refresh()
    expect(b.state('brave', 'search')).toBe('blocked')
    expect(b.available('brave', 'search')).toBe(false)
  })
})
