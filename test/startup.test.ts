import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { freePort } from './support/free-port.ts'

const run = promisify(execFile)
const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname

let dir: string
let upstream: FakeUpstream
let env: Record<string, string>
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-start-'))
  const page = fixture('serp/google/web-desktop/zlurad-coffee.html')
  // The engine answers after 400 ms, so a search is still in flight when SIGTERM arrives.
  upstream = await fakeUpstream((_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page), 400))
  env = { ...process.env, TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`, TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_PORT: '0' } as Record<
    string,
    string
  >
})
afterAll(async () => {
  await upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts `trawl serve` and resolves with the URL from its "listening" log line. */
function startServer(extra: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [TRAWL, 'serve'], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Trawl listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match?.[1]) resolve({ child, url: match[1], output: () => output })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)))
  })
}

describe('start-up, CLI and shutdown', () => {
  test('a newcomer creates an account with the CLI and searches the running server; SIGTERM drains', async () => {
    const created = await run(process.execPath, [TRAWL, 'accounts', 'create', '--email', 'new@example.test', '--credits', '5', '--json'], { env })
    const account = JSON.parse(created.stdout)
    expect(account.account).toMatchObject({ plan: 'free', balance: 5 })
    const secret: string = account.key.secret

    const added = await run(process.execPath, [TRAWL, 'credits', 'add', '--account', account.account.id, '--credits', '2', '--plan', 'starter'], { env })
    expect(added.stdout).toContain('7 credits, plan starter')

    const server = await startServer()
    const inFlight = fetch(`${server.url}/v1/search?q=coffee`, { headers: { authorization: `Bearer ${secret}` } })
    for (let i = 0; i < 200 && upstream.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(upstream.seen.length).toBe(1)
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', resolve))
    server.child.kill('SIGTERM')
    const res = await inFlight
    expect(res.status).toBe(200)
    expect((await res.json()).results.length).toBe(10)
    expect(await exited).toBe(0)
    expect(server.output()).toMatch(/SIGTERM: finishing in-flight requests/)
  })

  test('bad configuration stops start-up with every bad variable named', async () => {
    const failed = await run(process.execPath, [TRAWL, 'serve'], {
      env: { ...env, TRAWL_PORT: 'eighty', TRAWL_DATABASE_URL: 'mysql://x', TRAWL_UPSTREAM_HOSTS: 'nohost' },
    }).catch((e) => e)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain('invalid configuration')
    expect(failed.stderr).toContain('TRAWL_PORT')
    expect(failed.stderr).toContain('TRAWL_DATABASE_URL')
    expect(failed.stderr).toContain('TRAWL_UPSTREAM_HOSTS: "nohost" is not host=baseURL')
    // Engine names are checked once the engines are known: a misspelt one would route nothing.
    const engine = await run(process.execPath, [TRAWL, 'serve'], { env: { ...env, TRAWL_PROXY_ENGINES: 'gogle=direct' } }).catch((e) => e)
    expect(engine.code).toBe(1)
    expect(engine.stderr).toContain('TRAWL_PROXY_ENGINES names engine "gogle"; the engines are google, ')
  })

  test('an unreachable database or listen address stops start-up naming the variable and the value', async () => {
    const port = await freePort()
    const db = await run(process.execPath, [TRAWL, 'serve'], { env: { ...env, TRAWL_DATABASE_URL: `postgres://trawl:hunter2@127.0.0.1:${port}/x` } }).catch(
      (e) => e,
    )
    expect(db.code).toBe(1)
    expect(db.stderr).toContain(`the database at TRAWL_DATABASE_URL=postgres://trawl:***@127.0.0.1:${port}/x could not be opened`)
    expect(db.stderr).not.toContain('hunter2')
    // An address of no interface here (TEST-NET-1): binding fails at once, nothing is sent.
    const host = await run(process.execPath, [TRAWL, 'serve'], { env: { ...env, TRAWL_HOST: '192.0.2.1', TRAWL_PORT: String(port) } }).catch((e) => e)
    expect(host.code).toBe(1)
    expect(host.stderr).toContain(`cannot listen on TRAWL_HOST=192.0.2.1 TRAWL_PORT=${port}`)
  })

  test('an unreachable Redis is said at start-up with its variable; the server serves without it', async () => {
    const port = await freePort()
    const server = await startServer({ TRAWL_REDIS_URL: `redis://:hunter2@127.0.0.1:${port}` })
    try {
      expect(server.output()).toContain(`Redis at TRAWL_REDIS_URL=redis://:***@127.0.0.1:${port} is unreachable`)
      expect(server.output()).not.toContain('hunter2')
      expect((await fetch(`${server.url}/livez`)).status).toBe(200)
    } finally {
      const exited = new Promise((resolve) => server.child.on('exit', resolve))
      server.child.kill('SIGTERM')
      await exited
    }
  })

  test('keys create and migrate work without a server', async () => {
    const created = JSON.parse((await run(process.execPath, [TRAWL, 'accounts', 'create', '--email', 'k@example.test', '--json'], { env })).stdout)
    const key = JSON.parse(
      (await run(process.execPath, [TRAWL, 'keys', 'create', '--account', created.account.id, '--name', 'ci', '--credit-limit', '3', '--json'], { env }))
        .stdout,
    )
    expect(key).toMatchObject({ name: 'ci', credit_limit: 3, secret: expect.stringMatching(/^trawl_live_/) })
    expect((await run(process.execPath, [TRAWL, 'migrate'], { env })).stdout).toContain('migrations applied')
  })
})

test('requests that arrive while the server drains get 503 unavailable in the envelope', async () => {
  const { startTrawl } = await import('./support/start-trawl.ts')
  const { connect } = await import('node:net')
  const slow = await fakeUpstream((_req, res) =>
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(fixture('serp/google/web-desktop/zlurad-coffee.html')), 300),
  )
  const trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${slow.url}` })
  const { key } = await trawl.account()
  const inFlight = fetch(`${trawl.base}/v1/search?q=coffee`, { headers: { authorization: `Bearer ${key}` } })
  // A client half-way through sending its request when the drain begins.
  const socket = connect(Number(new URL(trawl.base).port), '127.0.0.1')
  let raw = ''
  socket.on('data', (d) => (raw += d.toString()))
  const socketClosed = new Promise((resolve) => socket.on('close', resolve))
  socket.write('GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\n')
  for (let i = 0; i < 200 && slow.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
  const closed = trawl.close()
  await new Promise((r) => setTimeout(r, 50))
  socket.write(`Authorization: Bearer ${key}\r\n\r\n`)
  expect((await inFlight).status).toBe(200)
  await socketClosed
  await closed
  await slow.close()
  expect(raw).toMatch(/^HTTP\/1\.1 503/)
  expect(raw).toMatch(/retry-after: 5/i)
  expect(raw).toContain('"code":"unavailable"')
})
