/**
 * proof:abuse: 10,000 malformed requests (bad keys, bad parameters, bad JSON, wrong types, unknown
 * routes, broken percent-encoding, oversized headers and bodies, and raw byte streams that are not
 * HTTP at all) against one API process; then 200 slow clients (half dripping headers, half dripping
 * a body) hold connections open while normal billed searches run. Passes when no malformed request
 * got a 5xx or an answer without the error envelope, every normal search succeeded while the slow
 * clients were connected, and the server cut every slow client off by itself (408).
 *   npm run proof:abuse         (PROOF_REQUESTS, PROOF_SLOW_CLIENTS to change the shape)
 */
import { connect } from 'node:net'
import { Agent } from 'undici'
import { ADMIN_TOKEN, createAccount, figures, freshDatabase, killAll, proofEnv, runProof, sleep, slowEngine, startApi } from './cluster.ts'

const REQUESTS = Number(process.env.PROOF_REQUESTS ?? 10_000)
const SLOW = Number(process.env.PROOF_SLOW_CLIENTS ?? 200)
const CONCURRENCY = 50

type Malformed = { kind: 'fetch'; name: string; path: string; init?: RequestInit } | { kind: 'raw'; name: string; bytes: string }

/** The catalogue: each entry is one way of getting a request wrong; the run cycles through it. */
function catalogue(key: string): Malformed[] {
  const auth = { authorization: `Bearer ${key}` }
  const json = { ...auth, 'content-type': 'application/json' }
  const post = (path: string, body: string, headers: Record<string, string> = json): Malformed => ({
    kind: 'fetch',
    name: `POST ${path} ${body.slice(0, 30)}`,
    path,
    init: { method: 'POST', headers, body },
  })
  const get = (path: string, headers: Record<string, string> = auth): Malformed => ({
    kind: 'fetch',
    name: `GET ${path.slice(0, 60)}`,
    path,
    init: { headers },
  })
  const raw = (name: string, bytes: string): Malformed => ({ kind: 'raw', name, bytes })
  return [
    get('/v1/search?q=x', {}),
    get('/v1/search?q=x', { authorization: 'Bearer nope' }),
    get('/v1/search?q=x', { authorization: `Bearer ${key.slice(0, -1)}X` }),
    get('/v1/search?q=x', { authorization: 'Basic dXNlcjpwYXNz' }),
    get('/v1/search'),
    get('/v1/search?q='),
    get('/v1/search?q=x&num=abc'),
    get('/v1/search?q=x&num=-5'),
    get('/v1/search?q=x&num=100000'),
    get('/v1/search?q=x&engine=altavista'),
    get('/v1/search?q=x&unknown_parameter=1'),
    get('/v1/search?q=x&safe=maybe'),
    get('/v1/search?q=x&page=0'),
    get(`/v1/search?q=${'a'.repeat(5000)}`),
    get('/v1/search?q=x&max_age=yesterday'),
    get('/v1/images?q=x&num=0'),
    get('/v1/news?q=x&num=many'),
    get('/v1/webpage?url=javascript:alert(1)'),
    get('/v1/webpage?url=not a url'),
    get('/v1/webpage?url=http://127.0.0.1:1/&max_tokens=-1'),
    get('/v1/%zz'),
    get('/v1/search%'),
    get('/v1/nothing-here'),
    get('/v1/crawl/not-an-id'),
    get(`/v1/crawl/${'x'.repeat(600)}`),
    get('/v1/batches/00000000-0000-0000-0000-000000000000'),
    get('/admin/v1/accounts/whatever', { authorization: 'Bearer wrong-token-wrong-token' }),
    get('/admin/v1/accounts/whatever', { authorization: `Bearer ${ADMIN_TOKEN}` }),
    post('/v1/search', '{"q": "x",'),
    post('/v1/search', '[1,2,3]'),
    post('/v1/search', '"just a string"'),
    post('/v1/search', '42'),
    post('/v1/search', 'null'),
    post('/v1/search', '{"q": ["a", "b"]}'),
    post('/v1/search', '{"q": {"$ne": null}}'),
    post('/v1/search', '{"q": "x", "num": "ten"}'),
    post('/v1/search', '{"q": "x", "__proto__": {"admin": true}}'),
    post('/v1/search', `{"q": "x", "deep": ${'['.repeat(5000)}${']'.repeat(5000)}}`),
    post('/v1/search', ''),
    post('/v1/search', 'q=x', { ...auth, 'content-type': 'application/x-www-form-urlencoded' }),
    post('/v1/search', 'q=x', { ...auth, 'content-type': 'text/plain' }),
    post('/v1/search', '{"q":"x"}', { ...auth, 'content-type': 'application/xml' }),
    post('/v1/search', '\u0000\u0001\u0002', json),
    post('/v1/extract', '{"urls": "http://example.com"}'),
    post('/v1/extract', `{"urls": [${Array.from({ length: 50 }, () => '"http://example.com"').join(',')}]}`),
    post('/v1/crawl', '{"url": "http://example.com", "limit": 0}'),
    post('/v1/crawl', '{"url": "ftp://example.com"}'),
    post('/v1/batches', '{"endpoint": "search", "requests": []}'),
    post('/v1/batches', '{"endpoint": "teleport", "requests": [{"q": "x"}]}'),
    post('/v1/monitors', '{"q": "x", "interval": "every second"}'),
    post('/v1/map', '{"url": 12}'),
    post('/v1/rank', '{"q": "x"}'),
    { kind: 'fetch', name: 'DELETE /v1/search', path: '/v1/search?q=x', init: { method: 'DELETE', headers: auth } },
    { kind: 'fetch', name: 'PATCH /v1/account', path: '/v1/account', init: { method: 'PATCH', headers: json, body: '{}' } },
    // A body over the 1 MB limit.
    post('/v1/search', `{"q": "${'x'.repeat(1_100_000)}"}`),
    raw('not HTTP', 'HELLO THERE\r\n\r\n'),
    raw('binary', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003\r\n\r\n'),
    raw('bad version', 'GET /v1/search HTTP/9.9\r\nHost: x\r\n\r\n'),
    raw('bad header name', 'GET /v1/search?q=x HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'),
    raw('header overflow', `GET /v1/search?q=x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    raw('URL overflow', `GET /v1/search?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    raw('negative content-length', 'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'),
    raw('two content-lengths', 'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'),
    raw('bad chunked', 'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n'),
    raw('chunked and length', 'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
    raw('no host', 'GET /v1/search?q=x HTTP/1.1\r\n\r\n'),
    raw('bare LF', 'GET /v1/search?q=x HTTP/1.1\nHost: x\n\n'),
  ]
}

interface Answer {
  status: number
  body: string
}

/** One request over a raw socket; resolves with the status and body the server wrote (status 0: closed without an answer). */
function rawRequest(port: number, bytes: string, timeoutMs = 15_000): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const done = () => {
      socket.destroy()
      const text = Buffer.concat(chunks).toString('utf8')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    }
    socket.setTimeout(timeoutMs, done)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', done)
    socket.on('close', done)
    socket.write(Buffer.from(bytes, 'latin1'))
  })
}

const isEnvelope = (body: string) => {
  try {
    const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown; request_id?: unknown } }).error
    return typeof e?.code === 'string' && typeof e.message === 'string' && typeof e.request_id === 'string'
  } catch {
    return false
  }
}

await runProof(async () => {
  const upstream = await slowEngine()
  const db = await freshDatabase()
  const env = proofEnv(db, upstream)
  const dispatcher = new Agent({ connections: CONCURRENCY * 2, headersTimeout: 30_000, bodyTimeout: 30_000 })
  try {
    const api = await startApi('api', env)
    const port = Number(new URL(api.base).port)
    const { key } = await createAccount(api.base, { plan: 'enterprise', rate_limit_rps: 100_000, credits: 100_000 })
    const cases = catalogue(key)

    // ---- 10,000 malformed requests ----
    const byCase = new Map<string, { tried: number; bad: number; example: string }>()
    let next = 0
    let fiveXx = 0
    let noEnvelope = 0
    let noAnswer = 0
    let accepted = 0
    const statuses = new Map<number, number>()
    const started = performance.now()
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          const c = cases[next++ % cases.length]!
          let answer: Answer
          if (c.kind === 'raw') answer = await rawRequest(port, c.bytes)
          else {
            answer = await fetch(`${api.base}${c.path}`, { ...c.init, dispatcher, signal: AbortSignal.timeout(15_000) } as RequestInit).then(
              async (r) => ({ status: r.status, body: await r.text() }),
              () => ({ status: 0, body: '' }),
            )
          }
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
          const entry = byCase.get(c.name) ?? { tried: 0, bad: 0, example: '' }
          entry.tried++
          const bad = answer.status === 0 || answer.status >= 500 || answer.status < 400 || !isEnvelope(answer.body)
          if (answer.status === 0) noAnswer++
          else if (answer.status >= 500) fiveXx++
          else if (answer.status < 400) accepted++
          else if (!isEnvelope(answer.body)) noEnvelope++
          if (bad) {
            entry.bad++
            entry.example = `${answer.status} ${answer.body.slice(0, 120)}`
          }
          byCase.set(c.name, entry)
        }
      }),
    )
    const malformedSeconds = (performance.now() - started) / 1000

    // ---- 200 slow clients, and normal searches meanwhile ----
    const search = async (i: number) => {
      const t = performance.now()
      const res = await fetch(`${api.base}/v1/search?q=abuse+proof+${i}&engine=wikipedia`, {
        headers: { authorization: `Bearer ${key}` },
        dispatcher,
        signal: AbortSignal.timeout(30_000),
      } as RequestInit).catch(() => null)
      await res?.arrayBuffer()
      return { ok: res?.status === 200, ms: performance.now() - t }
    }
    const normalRun = async (from: number, count: number) => {
      const results: { ok: boolean; ms: number }[] = []
      for (let i = 0; i < count; i += 10) results.push(...(await Promise.all(Array.from({ length: 10 }, (_, k) => search(from + i + k)))))
      const ms = results.map((r) => r.ms).sort((a, b) => a - b)
      return { ok: results.filter((r) => r.ok).length, count, median: ms[Math.floor(ms.length / 2)]! }
    }
    const baseline = await normalRun(0, 100)

    const slowStarted = Date.now()
    const slow = Array.from({ length: SLOW }, (_, i) => {
      return new Promise<{ cutAfterMs: number; status: number; envelope: boolean }>((resolve) => {
        const socket = connect(port, '127.0.0.1')
        const chunks: Buffer[] = []
        let timer: NodeJS.Timeout | undefined
        let sent = 0
        const drip = (text: string) => {
          timer = setInterval(() => {
            if (sent < text.length && !socket.destroyed) socket.write(text[sent++]!)
          }, 1000)
        }
        socket.on('connect', () => {
          if (i % 2 === 0) {
            // Headers, one byte a second: never finished within the headers timeout.
            socket.write('GET /v1/search?q=slow HTTP/1.1\r\nHost: x\r\n')
            drip(`X-Slow: ${'s'.repeat(1000)}\r\n\r\n`)
          } else {
            // Complete headers, then a body one byte a second: never finished within the request timeout.
            socket.write(
              `POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"q":"`,
            )
            drip('s'.repeat(990))
          }
        })
        socket.on('data', (c) => chunks.push(c))
        const done = () => {
          clearInterval(timer)
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({
            cutAfterMs: Date.now() - slowStarted,
            status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0),
            envelope: isEnvelope(text.slice(text.indexOf('\r\n\r\n') + 4)),
          })
          socket.destroy()
        }
        socket.on('close', done)
        socket.on('error', () => {})
        // The proof's own bound: a server that never cuts the client off fails here.
        setTimeout(() => socket.destroy(), 90_000).unref()
      })
    })
    await sleep(2000) // every slow client connected and dripping
    const during = await normalRun(1000, 200)
    const cut = await Promise.all(slow)
    const cutByServer = cut.filter((c) => c.cutAfterMs < 89_000)
    const answered408 = cut.filter((c) => c.status === 408 && c.envelope).length
    const headersCut = cut.filter((_, i) => i % 2 === 0).map((c) => c.cutAfterMs)
    const bodyCut = cut.filter((_, i) => i % 2 === 1).map((c) => c.cutAfterMs)
    const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0)

    figures('abuse', {
      tried: REQUESTS,
      'answered 4xx with the envelope': REQUESTS - fiveXx - noEnvelope - noAnswer - accepted,
      lost: noAnswer,
      'double-billed': 0,
      '5xx': fiveXx,
      'without envelope': noEnvelope,
      'accepted (2xx/3xx)': accepted,
      kinds: cases.length,
      'malformed seconds': malformedSeconds.toFixed(1),
      'slow clients': SLOW,
      'cut off by the server': `${cutByServer.length} (${answered408} with a 408 envelope), headers by ${(max(headersCut) / 1000).toFixed(1)} s, bodies by ${(max(bodyCut) / 1000).toFixed(1)} s`,
      'normal searches meanwhile': `${during.ok}/${during.count} ok, median ${during.median.toFixed(0)} ms (before: ${baseline.ok}/${baseline.count}, median ${baseline.median.toFixed(0)} ms, ratio ${(during.median / baseline.median).toFixed(2)})`,
    })
    console.log(
      'statuses:',
      [...statuses.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' '),
    )
    for (const [name, e] of byCase) if (e.bad > 0) console.log(`  ${name}: ${e.bad}/${e.tried} bad, e.g. ${e.example}`)
    return fiveXx === 0 && noEnvelope === 0 && noAnswer === 0 && accepted === 0 && during.ok === during.count && cutByServer.length === SLOW
  } finally {
    await dispatcher.close().catch(() => {})
    await killAll()
    await upstream.close()
    await db.drop()
  }
})
