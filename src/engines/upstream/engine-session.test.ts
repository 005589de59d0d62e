import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openStore, type Store } from '../../store/database.ts'
import { gatePassStore } from '../gates/gate-pass.store.ts'
import { EngineSessions } from './engine-session.ts'

const SEARCH = new URL('https://www.startpage.com/sp/search')
const HTML = new URL('https://html.startpage.com/x')
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36'

let store: Store
beforeAll(async () => {
  store = await openStore('sqlite::memory:')
})
afterAll(async () => {
  await store.close()
})

describe('EngineSessions', () => {
  test('cookies an engine set go back to its site, after the engine’s own, which win on a name', () => {
    const sessions = new EngineSessions()
    const key = sessions.key(SEARCH, null, UA)
    expect(sessions.remember(key, SEARCH, ['pass=abc; Path=/; Domain=startpage.com; Secure', 'lang=de; Path=/'])).toBe(true)
    expect(sessions.cookieHeader(key, SEARCH, 'preferences=x; lang=en')).toBe('preferences=x; lang=en; pass=abc')
    // Another host of the same site shares the session; the host-only cookie stays with its host.
    expect(sessions.key(HTML, null, UA)).toBe(key)
    expect(sessions.cookieHeader(key, HTML, undefined)).toBe('pass=abc')
    // Each way out (direct, each proxy) is a session of its own.
    expect(sessions.key(SEARCH, 'http://user:pw@proxy.example:8080', UA)).toMatch(/^startpage\.com\|proxy\.example:8080\|/)
    expect(sessions.cookieHeader(sessions.key(SEARCH, 'http://proxy.example:8080', UA), SEARCH, undefined)).toBeUndefined()
    // Another User-Agent is another identity: the cookies stay with the one that earned them.
    expect(sessions.key(SEARCH, null, 'Nokia6230/2.0')).not.toBe(key)
    expect(sessions.cookieHeader(sessions.key(SEARCH, null, 'Nokia6230/2.0'), SEARCH, undefined)).toBeUndefined()
  })

  test('expired and cleared cookies are not sent; forget starts afresh', () => {
    const sessions = new EngineSessions()
    const key = sessions.key(SEARCH, null, UA)
    sessions.remember(key, SEARCH, 'a=1; Path=/')
    sessions.remember(key, SEARCH, 'b=2; Path=/; Max-Age=0')
    sessions.remember(key, SEARCH, 'a=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT')
    expect(sessions.cookieHeader(key, SEARCH, undefined)).toBeUndefined()
    sessions.remember(key, SEARCH, 'c=3; Path=/')
    sessions.forget(key)
    expect(sessions.cookieHeader(key, SEARCH, undefined)).toBeUndefined()
  })

  test('a pass one process shares is used by another, through the database', async () => {
    let now = 1_000_000
    const passes = gatePassStore(store, () => now)
    const one = new EngineSessions(passes, () => now)
    const two = new EngineSessions(passes, () => now)
    const key = one.key(SEARCH, null, UA)
    one.remember(key, SEARCH, 'spchal-auth=jwt; Path=/; Max-Age=3600; Secure')
    await one.share(key)
    expect(await two.sync(key)).toBe(true)
    expect(two.cookieHeader(key, SEARCH, undefined)).toBe('spchal-auth=jwt')
    // Nothing newer: a second look brings nothing, and is not made again within 30 s.
    expect(await two.sync(key, true)).toBe(false)
    now += 1000
    one.remember(key, SEARCH, 'spchal-auth=jwt2; Path=/; Max-Age=3600; Secure')
    await one.share(key)
    expect(await two.sync(key)).toBe(false)
    expect(await two.sync(key, true)).toBe(true)
    expect(two.cookieHeader(key, SEARCH, undefined)).toBe('spchal-auth=jwt2')
  })
})
