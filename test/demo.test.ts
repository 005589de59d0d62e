import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { freePort } from './support/free-port.ts'

/**
 * `trawl demo` as a person runs it: the real command in a child process, its printed key and
 * sign-in used over HTTP, results parsed from the recorded pages, what it has not recorded said as
 * such (engine health untouched), then Ctrl-C, or a hang-up, and the temporary database gone. Its
 * engines are its own server on 127.0.0.1; nothing leaves the machine.
 */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname

let child: ChildProcess
let home: string
let base: string
let stdout = ''
let stderr = ''
let key: string
let email: string
let password: string
let databaseFile: string

/** Resolves with the text once `pattern` appears in what the demo printed. */
function printed(pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = stdout.match(pattern)
      if (match) {
        child.stdout?.off('data', check)
        child.off('exit', early)
        resolve(match)
      }
    }
    const early = (code: number | null) => reject(new Error(`trawl demo exited (${code}) before printing ${pattern}:\n${stdout}\n${stderr}`))
    child.stdout?.on('data', check)
    child.once('exit', early)
    check()
  })
}

const exited = () => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)))

beforeAll(async () => {
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  home = mkdtempSync(join(tmpdir(), 'trawl-demo-test-'))
  child = spawn(process.execPath, [TRAWL, 'demo'], {
    // Nothing of the developer's own: no TRAWL_* settings, no home config; no browser to start.
    env: { PATH: process.env.PATH ?? '', HOME: home, TRAWL_PORT: String(port), TRAWL_BROWSER: 'off', TRAWL_READER_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const [, database] = (await printed(/Database {3}(\S+) \(deleted when the demo stops\)/)) as [string, string]
  databaseFile = database
  key = (stdout.match(/^TRAWL_API_KEY=(trawl_live_\S+)$/m) as RegExpMatchArray)[1] as string
  const signIn = stdout.match(/Sign in {4}(\S+) {2}password (\S+)/) as RegExpMatchArray
  email = signIn[1] as string
  password = signIn[2] as string
}, 120_000)

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL')
    await exited()
  }
  rmSync(home, { recursive: true, force: true })
})

describe('trawl demo', () => {
  test('prints the key, a curl line, the dashboard and its sign-in, and says the results are recorded', () => {
    expect(stdout).toContain(`curl -H "Authorization: Bearer ${key}" "${base}/v1/search?q=coffee"`)
    expect(stdout).toContain(`Dashboard  ${base}/app`)
    expect(stdout).toMatch(/RECORDED result pages/)
    expect(stdout).toContain('Trawl-Demo: recorded pages')
    // The warning line of the log, at start.
    expect(stdout).toMatch(/"level":40,.*demo mode: every engine answers from recorded result pages/)
    expect(existsSync(databaseFile)).toBe(true)
  })

  test('a search with the printed key gets results parsed from a recorded page, marked as such', async () => {
    const res = await fetch(`${base}/v1/search?q=${encodeURIComponent('anything at all')}`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('trawl-demo')).toBe('recorded pages')
    const body = (await res.json()) as { results: { title: string; link: string; position: number }[]; meta: { engine: string; credits_used: number } }
    expect(body.results.length).toBeGreaterThanOrEqual(5)
    for (const r of body.results) {
      expect(r.title).not.toBe('')
      expect(new URL(r.link).protocol).toMatch(/^https?:$/)
    }
    expect(body.results.map((r) => r.title).join(' ')).toMatch(/coffee/i)
    expect(body.meta).toMatchObject({ engine: 'google', credits_used: 1 })
  })

  test('other engines and a vertical answer from their recorded pages too', async () => {
    for (const path of [
      '/v1/search?q=x&engine=bing',
      '/v1/search?q=x&engine=duckduckgo',
      '/v1/search?q=x&engine=brave',
      '/v1/search?q=x&engine=mojeek',
      '/v1/images?q=x',
    ]) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
      expect(res.status, path).toBe(200)
      expect(((await res.json()) as { results: unknown[] }).results.length, path).toBeGreaterThan(0)
    }
  })

  test('every answer carries the header: errors and the dashboard too', async () => {
    const [noKey, app] = await Promise.all([fetch(`${base}/v1/search?q=coffee`), fetch(`${base}/app/`)])
    expect(noKey.status).toBe(401)
    expect(noKey.headers.get('trawl-demo')).toBe('recorded pages')
    expect(app.status).toBe(200)
    expect(app.headers.get('trawl-demo')).toBe('recorded pages')
  })

  test('the printed e-mail and password sign in to the dashboard', async () => {
    const res = await fetch(`${base}/app/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie().some((c) => c.startsWith('trawl_session='))).toBe(true)
  })

  test('the banner lists what is recorded, as docs/cli.md does', () => {
    expect(stdout).toMatch(/^ {4}\/v1\/search +google, bing, duckduckgo, brave, mojeek, startpage, wikipedia$/m)
    expect(stdout).toMatch(/^ {4}\/v1\/images +google, bing$/m)
    expect(stdout).toMatch(/^ {4}\/v1\/maps +google$/m)
    expect(stdout).toMatch(/^ {2}Not recorded.*\/v1\/news.*\/v1\/shopping.*\/v1\/scholar.*\/v1\/patents.*\/v1\/autocomplete/m)
    // The block from "Recorded" to the blank line after it, line for line in the docs.
    const lines = stdout.split('\n')
    const from = lines.findIndex((l) => l.startsWith('  Recorded'))
    const to = lines.indexOf('', from)
    expect(from).toBeGreaterThan(0)
    expect(to - from).toBeGreaterThan(5)
    const docs = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8')
    for (const line of lines.slice(from, to)) expect(docs, line).toContain(line.trim())
  })

  test('the verticals recorded since answer from their pages: maps and places, Bing images, Startpage and Wikipedia', async () => {
    for (const path of ['/v1/maps?q=x', '/v1/places?q=x', '/v1/images?q=x&engine=bing', '/v1/search?q=x&engine=startpage', '/v1/search?q=x&engine=wikipedia']) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
      expect(res.status, path).toBe(200)
      expect(((await res.json()) as { results: unknown[] }).results.length, path).toBeGreaterThan(0)
    }
  })

  test('what has no recorded page says so (501 not_configured), costs nothing, and leaves the engines healthy', async () => {
    const auth = { authorization: `Bearer ${key}` }
    const credits = async () => ((await (await fetch(`${base}/v1/account`, { headers: auth })).json()) as { balance: number }).balance
    const before = await credits()
    const asked: [string, RegExp][] = [
      ['/v1/news?q=x', /no recorded google news page/],
      ['/v1/shopping?q=x', /no recorded google shopping page/],
      ['/v1/scholar?q=x', /no recorded google scholar page/],
      ['/v1/patents?q=x', /no recorded google patents page/],
      ['/v1/autocomplete?q=x', /no recorded google autocomplete page/],
      ['/v1/news?q=x&engine=bing', /no recorded bing news page/],
    ]
    // Twice over: repeated failures would make an engine degraded, one refusal blocked.
    for (const [path, says] of [...asked, ...asked]) {
      const res = await fetch(`${base}${path}`, { headers: auth })
      expect(res.status, path).toBe(501)
      expect(res.headers.get('trawl-demo'), path).toBe('recorded pages')
      const { error } = (await res.json()) as { error: { code: string; message: string } }
      expect(error.code, path).toBe('not_configured')
      expect(error.message, path).toMatch(says)
      expect(error.message, path).toMatch(/recorded: .*web search/)
      expect(error.message, path).toContain('npm start')
      expect(error.message, path).not.toMatch(/refused|HTTP 404/)
    }
    expect(await credits()).toBe(before)
    const engines = (await (await fetch(`${base}/v1/engines`, { headers: auth })).json()) as {
      engines: { name: string; state: string; layouts: { layout: string }[] }[]
    }
    for (const engine of engines.engines) {
      expect(engine.state, engine.name).toBe('healthy')
      const layouts = engine.layouts.map((l) => l.layout)
      expect(layouts, engine.name).not.toContain('news')
      expect(layouts, engine.name).not.toContain('autocomplete')
    }
    // And Google still answers what was recorded.
    const search = await fetch(`${base}/v1/search?q=x`, { headers: auth })
    expect(search.status).toBe(200)
  })

  test('Ctrl-C stops it cleanly and the temporary database is gone', async () => {
    child.kill('SIGINT')
    expect(await exited()).toBe(0)
    expect(existsSync(databaseFile)).toBe(false)
    expect(existsSync(dirname(databaseFile))).toBe(false)
    expect(stderr).toBe('')
  }, 60_000)
})

describe('trawl demo hung up on', () => {
  test('SIGHUP (the terminal closed) stops it and removes its temporary database', async () => {
    const port = await freePort()
    const hupHome = mkdtempSync(join(tmpdir(), 'trawl-demo-test-'))
    const demo = spawn(process.execPath, [TRAWL, 'demo'], {
      env: { PATH: process.env.PATH ?? '', HOME: hupHome, TRAWL_PORT: String(port), TRAWL_BROWSER: 'off', TRAWL_READER_THREADS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    demo.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk
    })
    const code = new Promise<number | null>((resolve) => demo.once('exit', resolve))
    try {
      const database = await new Promise<string>((resolve, reject) => {
        demo.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
          const match = out.match(/Database {3}(\S+) \(deleted when the demo stops\)/)
          if (match) resolve(match[1] as string)
        })
        demo.once('exit', (c) => reject(new Error(`trawl demo exited (${c}) before printing its database:\n${out}\n${err}`)))
      })
      expect(existsSync(dirname(database))).toBe(true)
      demo.kill('SIGHUP')
      const exitCode = await code
      expect(existsSync(dirname(database))).toBe(false)
      expect(exitCode).toBe(0)
      expect(err).toBe('')
    } finally {
      if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL')
      rmSync(hupHome, { recursive: true, force: true })
    }
  }, 120_000)
})
