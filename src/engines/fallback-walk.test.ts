import { describe, expect, test } from 'vitest'
import { ApiError } from '../errors.ts'
import type { ParseQuality } from './engine.types.ts'
import { type Candidate, type Tried, walk } from './fallback-walk.ts'
import { EngineHealth } from './health.ts'
import { upstreamErrorFor } from './upstream/upstream-error.ts'

/** The one walk of providers (choice.ts) and routes (provider.routes.ts), on scripted candidates. */
type Page = { results: unknown[]; parse_quality: ParseQuality }
const routes: Candidate[] = ['wml', 'web', 'browser'].map((route) => ({ engine: 'google', route, layout: `search@${route}` }))
const ok = (n: number): Tried<Page> => ({ page: { results: Array.from({ length: n }, () => ({})), parse_quality: 'ok' }, attempts: [] })
const unreadable: Tried<Page> = { page: { results: [], parse_quality: 'partial' }, attempts: [] }
const refused = (engine: string): Tried<Page> => {
  const attempts = [{ engine, host: 'www.google.com', pool: null, outcome: 'blocked' as const, reason: 'CAPTCHA page', ms: 1 }]
  return { error: upstreamErrorFor('upstream_blocked', engine, attempts), attempts }
}

function setup(answers: Tried<Page>[]) {
  const asked: { route?: string; more: boolean }[] = []
  const ask = async (c: Candidate, more: boolean) => {
    asked.push({ route: c.route, more })
    return answers[asked.length - 1] ?? ok(1)
  }
  return { asked, ask, health: new EngineHealth({ cooldownMs: 1000, now: () => 0 }) }
}

describe('the fallback walk', () => {
  test('asks in order until one answers; a refusal passes the request on, `more` while others wait', async () => {
    const { asked, ask, health } = setup([refused('google'), ok(3)])
    const walked = await walk(routes, { health }, ask)
    expect(walked).toMatchObject({ answered: routes[1], page: { results: [{}, {}, {}] } })
    expect(asked).toEqual([
      { route: 'wml', more: true },
      { route: 'web', more: true },
    ])
    expect(walked.attempts.map((a) => a.outcome)).toEqual(['blocked'])
  })

  test('an unreadable page is kept as the last resort, marked in the attempts', async () => {
    const { ask, health } = setup([unreadable, refused('google'), refused('google')])
    const walked = await walk(routes, { health }, ask)
    expect(walked).toMatchObject({ answered: routes[0], page: { parse_quality: 'partial' } })
    expect(walked.attempts[0]).toEqual({
      engine: 'google',
      route: 'wml',
      host: '',
      pool: null,
      outcome: 'error',
      reason: 'page not understood (parse_quality partial)',
      ms: 0,
    })
  })

  test('candidates cooling down are passed over, and named; all cooling, all are asked', async () => {
    const { asked, ask, health } = setup([])
    health.record('google', 'search@wml', { outcome: 'blocked', ms: 1 })
    const walked = await walk(routes, { health }, ask)
    expect(asked.map((a) => a.route)).toEqual(['web'])
    expect(walked.attempts[0]).toMatchObject({ route: 'wml', outcome: 'skipped', reason: 'route blocked; not asked until its cool-down ends' })
    const one = setup([])
    one.health.record('google', 'search', { outcome: 'blocked', ms: 1 })
    await walk([{ engine: 'google', layout: 'search' }], { health: one.health }, one.ask)
    expect(one.asked).toHaveLength(1)
  })

  test('none is asked once the deadline has passed; nothing answering leaves the last failure', async () => {
    const { asked, ask, health } = setup([])
    const walked = await walk(routes, { health, deadline: Date.now() - 1 }, ask)
    expect(asked).toEqual([])
    expect(walked).toMatchObject({ lastError: undefined })
    expect(walked.attempts.map((a) => [a.route, a.outcome, a.reason])).toEqual(
      routes.map((r) => [r.route, 'skipped', 'not asked: the request deadline had passed']),
    )
    const failing = setup([refused('google'), refused('google'), refused('google')])
    const failed = await walk(routes, { health: failing.health }, failing.ask)
    expect(failed).toMatchObject({ lastError: { code: 'upstream_blocked' } })
    expect(failed.attempts).toHaveLength(3)
  })

  test('an error that is not an upstream failure ends the walk, thrown as is', async () => {
    const bad = new ApiError('invalid_request', 'engine google does not offer this request')
    const { asked, ask, health } = setup([{ error: bad, attempts: [] }])
    await expect(walk(routes, { health }, ask)).rejects.toBe(bad)
    expect(asked).toHaveLength(1)
  })
})
