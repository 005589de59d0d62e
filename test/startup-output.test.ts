import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'

/** `trawl serve` with stdout not a terminal (a pipe, as under a service manager): JSON lines only, no banner. */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-start-output-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a start with stdout piped prints JSON lines only', async () => {
  const env = { ...process.env, TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`, TRAWL_PORT: '0', TRAWL_LOG_LEVEL: 'info' }
  const child = spawn(process.execPath, [TRAWL, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (/Trawl listening on/.test(stdout) && stdout.endsWith('\n')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stdout}${stderr}`)))
  })
  child.kill('SIGTERM')
  expect(await exited).toBe(0)
  const lines = stdout.split('\n').filter((l) => l !== '')
  expect(lines.length).toBeGreaterThan(0)
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
  expect(lines.some((l) => (JSON.parse(l) as { msg?: string }).msg?.startsWith('Trawl listening on'))).toBe(true)
  expect(stdout).not.toContain('Trawl is running')
  expect(stdout).not.toContain('npx trawl accounts create')
}, 60_000)
