import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectStartpageBlock } from '../startpage/startpage.block.ts'
import { type AnubisChallenge, anubisGate, passChallengeUrl, readAnubisChallenge } from './anubis.gate.ts'
import { GateError, type GateHttp, type GateResponse, type PowSolver } from './gate.types.ts'

/** A challenge page in the shape of Anubis's template (web/index.templ): JSON scripts in the head. */
function anubisPage(challenge: unknown, opts: { prefix?: string; rules?: unknown } = {}) {
  return `<!DOCTYPE html><html lang="en"><head><title>Making sure you&#39;re not a bot!</title>
<script id="anubis_version" type="application/json">"v1.22.0"</script>
<script id="anubis_challenge" type="application/json">${JSON.stringify({ rules: opts.rules ?? { algorithm: 'fast', difficulty: 4 }, challenge })}</script>
<script id="anubis_base_prefix" type="application/json">${JSON.stringify(opts.prefix ?? '')}</script>
<script id="anubis_public_url" type="application/json">""</script></head>
<body><main><h1 id="title">Making sure you&#39;re not a bot!</h1><p id="status">Loading...</p></main></body></html>`
}

const SEARCH = 'https://www.startpage.com/sp/search'
const res = (body: string, url = SEARCH): GateResponse => ({ status: 200, url, headers: {}, body })

describe('anubis gate: detect', () => {
  test('no saved result page of any engine is taken for a challenge', () => {
    const files = listFixtures('serp', true).filter((f) => /\.(html?|json)$/.test(f))
    expect(files.length).toBeGreaterThan(50)
    for (const file of files) expect(anubisGate.detect(res(readFixture(`serp/${file}`).toString('utf8'))), file).toBeNull()
  })

  test('a result page that mentions the challenge in its text is not one', () => {
    expect(anubisGate.detect(res('<html><body><p>How &lt;script id="anubis_challenge"&gt; works</p><div class="w-gl"></div></body></html>'))).toBeNull()
  })

  test('the challenge of a current Anubis page: id, random data, difficulty, algorithm, base prefix', () => {
    const page = anubisPage({ id: '0199-abc', randomData: 'ab'.repeat(64), method: 'fast', spent: false }, { prefix: '/anubis' })
    expect(readAnubisChallenge(res(page))).toEqual({
      pageUrl: SEARCH,
      id: '0199-abc',
      randomData: 'ab'.repeat(64),
      difficulty: 4,
      algorithm: 'fast',
      basePrefix: '/anubis',
    })
    expect(detectStartpageBlock({ status: 200, url: SEARCH, body: page })).toEqual({ reason: 'Startpage served a proof-of-work (Anubis) challenge' })
  })

  test('the challenge of a pre-1.22 page: the random data itself, no id', () => {
    const c = readAnubisChallenge(res(anubisPage('cd'.repeat(64), { rules: { difficulty: 3, report_as: 3 } })))
    expect(c).toEqual({ pageUrl: SEARCH, randomData: 'cd'.repeat(64), difficulty: 3, algorithm: 'fast', basePrefix: '' })
  })

  test('an unreadable challenge is still a challenge, passed as a refusal with the reason', async () => {
    const broken = res('<script id="anubis_challenge" type="application/json">{not json</script>')
    const c = anubisGate.detect(broken)
    expect(c).toMatchObject({ problem: 'the challenge on the page is not JSON' })
    await expect(anubisGate.pass(c, fakeHttp([]).http, refuseSolve)).rejects.toThrow(new GateError('the challenge on the page is not JSON'))
  })

  test('a base prefix that is not a plain path is ignored: the pass stays on the page origin', () => {
    for (const prefix of ['//evil.example', 'https://evil.example', '/a/../b?x']) {
      expect(readAnubisChallenge(res(anubisPage({ id: 'i', randomData: 'aa' }, { prefix })))?.basePrefix).toBe('')
    }
  })
})

const refuseSolve: PowSolver = async () => {
  throw new Error('no solve expected')
}

/** A solver that really solves (in the test's own thread: small difficulties only). */
const inlineSolve: PowSolver = async (job) => {
  if (job.kind !== 'sha256-prefix') throw new Error('sha256-prefix only')
  for (let nonce = 0; ; nonce++) {
    const hash = createHash('sha256')
      .update(job.challenge + nonce)
      .digest('hex')
    if (hash.startsWith('0'.repeat(job.difficulty))) return { nonce, hash, ms: 12.4 }
  }
}

function fakeHttp(answers: Omit<GateResponse, 'url'>[]) {
  const gets: { url: string; headers?: Record<string, string> }[] = []
  const http: GateHttp = {
    headers: { 'user-agent': 'Mozilla/5.0 Chrome/138.0.0.0' },
    get: async (url, headers) => {
      gets.push({ url, headers })
      const next = answers.shift()
      if (!next) throw new Error('no more answers')
      return { ...next, url }
    },
    post: async () => {
      throw new Error('no post expected')
    },
    setCookie: () => {},
  }
  return { http, gets }
}

describe('anubis gate: pass', () => {
  const challenge: AnubisChallenge = { pageUrl: `${SEARCH}?q=a b`, id: 'id-1', randomData: 'ef'.repeat(64), difficulty: 2, algorithm: 'fast', basePrefix: '' }

  test('the pass-challenge address: id, response, nonce, redir (path and query), elapsedTime, in the page script order', () => {
    const url = new URL(passChallengeUrl({ ...challenge, basePrefix: '/p' }, { nonce: 42, hash: '00ab', ms: 12.6 }))
    expect(url.origin + url.pathname).toBe('https://www.startpage.com/p/.within.website/x/cmd/anubis/api/pass-challenge')
    expect([...url.searchParams]).toEqual([
      ['id', 'id-1'],
      ['response', '00ab'],
      ['nonce', '42'],
      ['redir', '/sp/search?q=a%20b'],
      ['elapsedTime', '13'],
    ])
  })

  test('solved and redeemed: a 302 that sets the auth cookie is a pass; the verification cookie does not count', async () => {
    const { http, gets } = fakeHttp([
      { status: 302, headers: { 'set-cookie': ['spchal-auth=token; Path=/; Expires=Wed, 01 Jan 2098 00:00:00 GMT'] }, body: '' },
    ])
    await anubisGate.pass(challenge, http, inlineSolve)
    const url = new URL(gets[0]?.url ?? '')
    expect(
      createHash('sha256')
        .update(`${challenge.randomData}${url.searchParams.get('nonce')}`)
        .digest('hex'),
    ).toBe(url.searchParams.get('response'))
    expect(gets[0]?.headers).toEqual({ referer: challenge.pageUrl, 'sec-fetch-site': 'same-origin' })
  })

  test('a 500 (the cookies of the challenge page missing) is a refusal with the status', async () => {
    const { http } = fakeHttp([{ status: 500, headers: { 'set-cookie': 'spchal-auth=; Path=/; Max-Age=0' }, body: 'error' }])
    await expect(anubisGate.pass(challenge, http, inlineSolve)).rejects.toThrow(new GateError('the engine refused the solved challenge (HTTP 500)'))
  })

  test('an answer that only clears cookies is not a pass', async () => {
    const cleared = ['spchal-auth=; Path=/', 'x=1; Max-Age=0', 'y=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'spchal-cookie-verification=abc; Path=/']
    const { http } = fakeHttp([{ status: 302, headers: { 'set-cookie': cleared }, body: '' }])
    await expect(anubisGate.pass(challenge, http, inlineSolve)).rejects.toThrow(new GateError('the pass set no auth cookie (HTTP 302)'))
  })

  test('an algorithm that is not SHA-256 work is refused without solving', async () => {
    await expect(anubisGate.pass({ ...challenge, algorithm: 'metarefresh' }, fakeHttp([]).http, refuseSolve)).rejects.toThrow(
      'unsupported challenge algorithm "metarefresh"',
    )
  })
})
