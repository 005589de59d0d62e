import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Answers Fastify and Node would write on their own (bad percent-encoding, unknown routes, body
 * parsing, size limits, unparsable HTTP) carry the API's error envelope and X-Request-Id like any other.
 * Requests go over a raw socket so URLs and bodies arrive byte for byte as written here.
 */

let trawl: Trawl
let key: string
beforeAll(async () => {
  trawl = await startTrawl({ TRAWL_BODY_LIMIT_BYTES: '65536' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000 })).key
})
afterAll(() => trawl.close())

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** Sends `head` (request line and headers, without the blank line) and `body` exactly as given. */
function raw(head: string, body = ''): Promise<Answer> {
  const { port } = new URL(trawl.base)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (d) => chunks.push(d))
    // The server may close while a large request is still being written; what it answered counts.
    socket.on('error', () => {})
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      if (split < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`))
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n')
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) })
    })
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
    socket.end(body)
  })
}

/**
 * Requests on one keep-alive connection, each sent once the answer before it is in (a request is
 * written in the pieces given, a moment apart), read as HTTP/1.1 answers to HEAD: headers only.
 * Whatever follows an answer's blank line before the next answer is that answer's `body`.
 */
function oneConnection(requests: string[][]): Promise<Answer[]> {
  const { port } = new URL(trawl.base)
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let received = ''
    let next = 0
    const answersIn = (text: string) => (text.match(/(^|\r\n\r\n)HTTP\/1\.1 /g) ?? []).length
    const sendNext = async () => {
      const pieces = requests[next++]
      if (!pieces) return
      for (const [i, piece] of pieces.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50))
        socket.write(piece)
      }
    }
    socket.on('data', (d) => {
      received += d.toString('latin1')
      if (answersIn(received) === next && received.endsWith('\r\n\r\n')) void sendNext()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      const answers = received.split(/(?=HTTP\/1\.1 \d{3} )/).map((text): Answer => {
        const split = text.indexOf('\r\n\r\n')
        const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n')
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
        return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) }
      })
      resolve(answers)
    })
    void sendNext()
  })
}

const post = (path: string, contentType: string | undefined, body: string) =>
  raw(
    [
      `POST ${path} HTTP/1.1`,
      `Authorization: Bearer ${key}`,
      ...(contentType ? [`Content-Type: ${contentType}`] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
    ].join('\r\n'),
    body,
  )

/** The envelope, with request_id equal to the X-Request-Id header. */
function envelopeOf(answer: Answer) {
  expect(answer.headers['content-type']).toMatch(/^application\/json/)
  const body = JSON.parse(answer.body)
  expect(Object.keys(body)).toEqual(['error'])
  expect(body.error).toEqual({ code: expect.any(String), message: expect.any(String), request_id: expect.stringMatching(/^req_/) })
  expect(answer.headers['x-request-id']).toBe(body.error.request_id)
  return { status: answer.status, code: body.error.code, message: body.error.message }
}

describe('framework-level errors use the error envelope', () => {
  test.each([
    ['/v1/batches/%ZZ', 'without a key'],
    ['/v1/crawl/%ZZ?api_key=x', 'on a route with a path parameter'],
    ['/v1/search%E0%A4%A', 'on a route without one'],
  ])('bad percent-encoding in the path (%s, %s) is 400 invalid_request', async (path) => {
    const answer = envelopeOf(await raw(`GET ${path} HTTP/1.1`))
    expect(answer).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringContaining('percent-encoding') })
  })

  test('an overlong path parameter is 400 invalid_request', async () => {
    const answer = envelopeOf(await raw(`GET /v1/crawl/${'a'.repeat(300)} HTTP/1.1\r\nAuthorization: Bearer ${key}`))
    expect(answer).toMatchObject({ status: 400, code: 'invalid_request' })
  })

  test('an unknown route is 404 not_found', async () => {
    expect(envelopeOf(await raw('GET /v1/nothing-here?x=1 HTTP/1.1'))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'no route GET /v1/nothing-here',
    })
    // A known path with a method it does not take is 405 (test/method-not-allowed.test.ts).
    expect(envelopeOf(await raw('PUT /v1/search HTTP/1.1'))).toMatchObject({ status: 405, code: 'invalid_request' })
  })

  test.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/xml'], [undefined]])(
    'a body sent as %s is 415 invalid_request',
    async (type) => {
      expect(envelopeOf(await post('/v1/search', type, type?.includes('form') ? 'q=coffee' : '{"q":"coffee"}'))).toMatchObject({
        status: 415,
        code: 'invalid_request',
        message: 'send the body as Content-Type: application/json',
      })
    },
  )

  test('a body over the limit is 413 invalid_request, with or without Content-Length', async () => {
    const big = JSON.stringify({ q: 'x'.repeat(70_000) })
    expect(envelopeOf(await post('/v1/search', 'application/json', big))).toMatchObject({ status: 413, code: 'invalid_request' })
    const chunk = big.slice(0, 40_000)
    const chunked = `${chunk.length.toString(16)}\r\n${chunk}\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`
    const answer = await raw(
      `POST /v1/search HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`,
      chunked,
    )
    expect(envelopeOf(answer)).toMatchObject({ status: 413, code: 'invalid_request' })
  })

  test.each([
    ['{"q":', 'body is not valid JSON'],
    ['{"q":"coffee"', 'body is not valid JSON'],
    ["{'q':'coffee'}", 'body is not valid JSON'],
    // An empty body is no body: the route then says what it needs.
    ['', 'q is required'],
    ['{"__proto__":{"x":1}}', 'body is not valid JSON'],
  ])('JSON body %j is 400 invalid_request', async (body, message) => {
    expect(envelopeOf(await post('/v1/search', 'application/json', body))).toMatchObject({ status: 400, code: 'invalid_request', message })
  })

  test('URL and headers over 16 KB are 431 invalid_request', async () => {
    const answer = await raw(`GET /v1/search?q=${'x'.repeat(20_000)} HTTP/1.1\r\nAuthorization: Bearer ${key}`)
    expect(envelopeOf(answer)).toMatchObject({ status: 431, code: 'invalid_request' })
  })

  test('a HEAD with a URL over 16 KB is answered 431 without a body: a keep-alive client reads exactly one answer per request', async () => {
    const answers = await oneConnection([
      ['HEAD /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      [`HEAD /v1/search?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`],
    ])
    const [first, second, ...rest] = answers
    expect(first).toMatchObject({ status: 200, body: '' })
    expect(second).toMatchObject({ status: 431, body: '' })
    expect(second?.headers['x-request-id']).toMatch(/^req_/)
    expect(second?.headers.connection).toBe('close')
    expect(second?.headers['content-length']).toBeUndefined()
    expect(rest).toEqual([])
  })

  test('a request Node cannot parse is 400 invalid_request', async () => {
    expect(envelopeOf(await raw('GET /v1/search HTTP/1.1\r\nBroken header line'))).toMatchObject({ status: 400, code: 'invalid_request' })
    expect(envelopeOf(await raw('NOT-A-METHOD / HTTP/1.1'))).toMatchObject({ status: 400, code: 'invalid_request' })
  })
})
