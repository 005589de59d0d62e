import { describe, expect, test } from 'vitest'
import { errorOf } from './support/books.ts'
import { startTrawl } from './support/start-trawl.ts'

describe('dashboard API without a session', () => {
  test.each([
    [{}, '/app/api'],
    [{ TRAWL_APP_URL: 'https://console.example.test/team/' }, '/team/api'],
  ])('with %j the 401 names the login route this server serves (%s/v1/login)', async (env, prefix) => {
    const trawl = await startTrawl(env)
    try {
      for (const [method, path] of [
        ['GET', '/v1/keys'],
        ['GET', '/v1/webhook'],
      ] as const) {
        const res = await fetch(`${trawl.base}${prefix}${path}`, { method })
        expect(await errorOf(res)).toMatchObject({ status: 401, code: 'unauthorized', message: `not logged in: POST ${prefix}/v1/login first` })
      }
      const login = await fetch(`${trawl.base}${prefix}/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.test', password: 'x' }),
      })
      expect(login.status).toBe(401) // the route named is the real one: it answers, refusing the password
    } finally {
      await trawl.close()
    }
  })
})
