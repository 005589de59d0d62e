import { createHash, pbkdf2Sync, randomBytes } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { challengePageHtml, formField } from '../../../test/support/altcha-upstream.ts'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectMojeekBlock } from '../mojeek/mojeek.block.ts'
import { parseMojeekSearch } from '../mojeek/mojeek.parse.ts'
import { type AltchaChallengePage, altchaJob, mojeekAltchaGate, readAltchaPage } from './altcha.gate.ts'
import { GateError, type GateHttp, type GateResponse, type PowSolver } from './gate.types.ts'

const SEARCH = 'https://www.mojeek.com/search?q=javascript+tutorial'
const res = (body: string, url = SEARCH): GateResponse => ({ status: 200, url, headers: {}, body })
const MOJEEK = { results: /class="results-standard"/, challengePath: '/captcha/challenge', verifyPath: '/captcha/verify' }

describe('altcha gate: detect', () => {
  test('no saved result page of any engine is taken for a challenge', () => {
    const files = listFixtures('serp', true).filter((f) => /\.(html?|json)$/.test(f))
    expect(files.length).toBeGreaterThan(50)
    for (const file of files) expect(mojeekAltchaGate.detect(res(readFixture(`serp/${file}`).toString('utf8'))), file).toBeNull()
  })

  test("Mojeek's result page is neither a challenge nor a block, even with the widget on it", () => {
    const page = readFixture('serp/mojeek/web/wsmcp-javascript-tutorial-2026.html').toString('utf8')
    expect(detectMojeekBlock({ status: 200, url: SEARCH, body: page })).toBeNull()
    const withWidget = page.replace('</body>', '<altcha-widget challengeurl="/captcha/challenge"></altcha-widget></body>')
    expect(mojeekAltchaGate.detect(res(withWidget))).toBeNull()
  })

  test('the challenge page: the widget in its form, the challenge and verify addresses, the hidden fields in order', () => {
    expect(readAltchaPage(MOJEEK, res(challengePageHtml('javascript tutorial')))).toEqual({
      pageUrl: SEARCH,
      challengeUrl: 'https://www.mojeek.com/captcha/challenge',
      verifyUrl: 'https://www.mojeek.com/captcha/verify',
      field: 'altcha',
      fields: [
        ['return', '/search?q=javascript%20tutorial'],
        ['altcha', null],
      ],
      enctype: 'multipart/form-data',
    })
  })

  test('a challenge page is a block for Mojeek, and never reads as a page that found nothing', () => {
    const page = challengePageHtml('javascript tutorial')
    expect(detectMojeekBlock({ status: 200, url: SEARCH, body: page })).toEqual({
      reason: 'Mojeek served its Altcha proof-of-work challenge (0 results until it is solved)',
    })
    // What the parser alone would have made of it: nothing found.
    expect(parseMojeekSearch(page).parse_quality).toBe('empty')
    expect(detectMojeekBlock({ status: 302, url: 'https://www.mojeek.com/captcha?r=/search', body: '' })).toEqual({
      reason: 'Mojeek redirected to its captcha page',
    })
  })

  test('addresses off the page origin are not followed: the site paths are used instead', () => {
    const page =
      '<form action="https://evil.example/captcha/verify" method="post"><altcha-widget challengeurl="https://evil.example/c" name="pow"></altcha-widget></form>'
    expect(readAltchaPage(MOJEEK, res(page))).toMatchObject({
      challengeUrl: 'https://www.mojeek.com/captcha/challenge',
      verifyUrl: 'https://www.mojeek.com/captcha/verify',
      field: 'pow',
      fields: [['pow', null]],
    })
  })

  test('a page with only a form posting to the verify path, or only the challenge address in a script, is a challenge', () => {
    expect(readAltchaPage(MOJEEK, res('<form method="post" action="/captcha/verify"><input type="hidden" name="a" value="1&amp;2"></form>'))).toMatchObject({
      fields: [
        ['a', '1&2'],
        ['altcha', null],
      ],
    })
    expect(readAltchaPage(MOJEEK, res('<script>load("/captcha/challenge")</script>'))).toMatchObject({
      challengeUrl: 'https://www.mojeek.com/captcha/challenge',
    })
    expect(readAltchaPage(MOJEEK, res('<p>No results found for your query.</p>'))).toBeNull()
  })
})

describe('altcha gate: challenges and payloads', () => {
  test('v2: the parameters are the kdf job; the payload is the challenge and the solution, base64 JSON', () => {
    const challenge = { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: 'aa', salt: 'bb', cost: 5000, keyLength: 32, keyPrefix: 'cc' }, signature: 'sig' }
    const { job, payload } = altchaJob(challenge)
    expect(job).toEqual({ kind: 'altcha-kdf', params: challenge.parameters })
    expect(JSON.parse(Buffer.from(payload({ nonce: 7, hash: 'cc01', ms: 31 }), 'base64').toString('utf8'))).toEqual({
      challenge,
      solution: { counter: 7, derivedKey: 'cc01', time: 31 },
    })
  })

  test('v1: the hash job up to maxnumber; the payload as the v1 widget sends it', () => {
    const challenge = { algorithm: 'SHA-256', challenge: 'ab12', maxnumber: 50_000, salt: 's?expires=1', signature: 'sig' }
    const { job, payload } = altchaJob(challenge)
    expect(job).toEqual({ kind: 'altcha-hash', algorithm: 'SHA-256', salt: 's?expires=1', challenge: 'ab12', maxNumber: 50_000 })
    expect(JSON.parse(Buffer.from(payload({ nonce: 9, ms: 4 }), 'base64').toString('utf8'))).toEqual({
      algorithm: 'SHA-256',
      challenge: 'ab12',
      number: 9,
      salt: 's?expires=1',
      signature: 'sig',
      took: 4,
    })
    expect(() => altchaJob({ foo: 1 })).toThrow(GateError)
    expect(() => altchaJob({ algorithm: 'MD5', challenge: 'ab', salt: 's' })).toThrow('unsupported Altcha algorithm "MD5"')
  })
})

/** Solves v2 PBKDF2 challenges in the test's own thread (small costs only). */
const inlineSolve: PowSolver = async (job) => {
  if (job.kind !== 'altcha-kdf') throw new Error('kdf only')
  const p = job.params as { nonce: string; salt: string; cost: number; keyLength: number; keyPrefix: string }
  for (let counter = 0; ; counter++) {
    const password = Buffer.concat([Buffer.from(p.nonce, 'hex'), Buffer.alloc(4)])
    password.writeUInt32BE(counter, password.length - 4)
    const key = pbkdf2Sync(password, Buffer.from(p.salt, 'hex'), p.cost, p.keyLength, 'sha256').toString('hex')
    if (key.startsWith(p.keyPrefix)) return { nonce: counter, hash: key, ms: 5 }
  }
}

function v2Challenge(counter: number) {
  const nonce = randomBytes(16).toString('hex')
  const salt = randomBytes(16).toString('hex')
  const password = Buffer.concat([Buffer.from(nonce, 'hex'), Buffer.alloc(4)])
  password.writeUInt32BE(counter, 16)
  const key = pbkdf2Sync(password, Buffer.from(salt, 'hex'), 10, 32, 'sha256')
  return { parameters: { algorithm: 'PBKDF2/SHA-256', cost: 10, keyLength: 32, keyPrefix: key.subarray(0, 16).toString('hex'), nonce, salt }, signature: 'sig' }
}

function fakeHttp(challenge: unknown, verify: Omit<GateResponse, 'url'>) {
  const posts: { url: string; body: string; headers?: Record<string, string> }[] = []
  const gets: { url: string; headers?: Record<string, string> }[] = []
  const http: GateHttp = {
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:144.0) Gecko/20100101 Firefox/144.0' },
    get: async (url, headers) => {
      gets.push({ url, headers })
      return { status: 200, url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(challenge) }
    },
    post: async (url, body, headers) => {
      posts.push({ url, body: String(body), headers })
      return { ...verify, url }
    },
    setCookie: () => {},
  }
  return { http, gets, posts }
}

describe('altcha gate: pass', () => {
  const page = readAltchaPage(MOJEEK, res(challengePageHtml('javascript tutorial'))) as AltchaChallengePage

  test('fetches the challenge as the widget does, solves it, and posts the payload in the form as multipart', async () => {
    const challenge = v2Challenge(23)
    const { http, gets, posts } = fakeHttp(challenge, { status: 200, headers: { 'set-cookie': 'chllg=t0k3n; Path=/; Max-Age=2592000' }, body: '{"ok":true}' })
    await mojeekAltchaGate.pass(page, http, inlineSolve)
    expect(gets[0]).toMatchObject({ url: 'https://www.mojeek.com/captcha/challenge', headers: { 'sec-fetch-mode': 'cors', referer: SEARCH } })
    const post = posts[0]!
    expect(post.url).toBe('https://www.mojeek.com/captcha/verify')
    expect(post.headers?.['content-type']).toMatch(/^multipart\/form-data; boundary=----geckoformboundary[0-9a-f]{32}$/)
    expect(post.headers).toMatchObject({ origin: 'https://www.mojeek.com', referer: SEARCH })
    const body = Buffer.from(post.body)
    expect(formField(post.headers?.['content-type'], body, 'return')).toBe('/search?q=javascript%20tutorial')
    const sent = JSON.parse(Buffer.from(formField(post.headers?.['content-type'], body, 'altcha') ?? '', 'base64').toString('utf8'))
    expect(sent.challenge).toEqual(challenge)
    expect(sent.solution).toMatchObject({ counter: 23 })
    expect(sent.solution.derivedKey.startsWith(challenge.parameters.keyPrefix)).toBe(true)
  })

  test('a refused payload, a verification that says no, or one that sets no cookie is a GateError with the reason', async () => {
    const cases: [Omit<GateResponse, 'url'>, string][] = [
      [{ status: 400, headers: {}, body: '{"verified":false}' }, 'the engine refused the solved challenge (HTTP 400)'],
      [{ status: 200, headers: { 'set-cookie': 'chllg=x' }, body: '{"verified":false}' }, 'the engine did not verify the solution'],
      [{ status: 200, headers: {}, body: '{"verified":true}' }, 'the verification set no cookie (HTTP 200)'],
    ]
    for (const [answer, reason] of cases) {
      await expect(mojeekAltchaGate.pass(page, fakeHttp(v2Challenge(1), answer).http, inlineSolve)).rejects.toThrow(new GateError(reason))
    }
  })

  test('a challenge that is not JSON, or that asks for interaction data, is refused without solving', async () => {
    const noSolve: PowSolver = async () => {
      throw new Error('no solve expected')
    }
    const notJson = fakeHttp('x', { status: 200, headers: {}, body: '' })
    notJson.http.get = async (url) => ({ status: 200, url, headers: {}, body: '<html>' })
    await expect(mojeekAltchaGate.pass(page, notJson.http, noSolve)).rejects.toThrow('the challenge is not JSON')
    await expect(mojeekAltchaGate.pass(page, fakeHttp({ his: { url: '/his' } }, { status: 200, headers: {}, body: '' }).http, noSolve)).rejects.toThrow(
      'the engine asks for interaction data (HIS)',
    )
  })

  test('a v1 challenge goes through the same form', async () => {
    const salt = 'abc?expires=4000000000'
    const challenge = { algorithm: 'SHA-256', challenge: createHash('sha256').update(`${salt}77`).digest('hex'), maxnumber: 1000, salt, signature: 'sig' }
    const { http, posts } = fakeHttp(challenge, { status: 302, headers: { 'set-cookie': ['chllg=v1; Path=/'] }, body: '' })
    const solve: PowSolver = async (job) => {
      expect(job).toMatchObject({ kind: 'altcha-hash', maxNumber: 1000 })
      return { nonce: 77, hash: challenge.challenge, ms: 3 }
    }
    await mojeekAltchaGate.pass(page, http, solve)
    const sent = JSON.parse(Buffer.from(formField(posts[0]?.headers?.['content-type'], Buffer.from(posts[0]?.body ?? ''), 'altcha') ?? '', 'base64').toString())
    expect(sent).toEqual({ algorithm: 'SHA-256', challenge: challenge.challenge, number: 77, salt, signature: 'sig', took: 3 })
  })
})
