import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'
import { BATCH_TARGETS } from '../src/cli/batch.commands.ts'
import { globalFlags } from '../src/cli/command.ts'
import { renderHelp } from '../src/cli/flags.ts'
import { startProgress } from '../src/cli/progress.ts'
import { COMMANDS } from '../src/cli/registry.ts'
import { BATCH_ENDPOINTS } from '../src/features/batches/batches.endpoints.ts'
import { SearchParams } from '../src/features/search/search.schema.ts'
import { VERTICAL_SPECS } from '../src/features/search/verticals/vertical.specs.ts'

/** `trawl --help`, every command's own --help, --version, command-line mistakes, and the progress display. */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version
const env = { PATH: process.env.PATH ?? '', TRAWL_CONFIG: '/nonexistent/trawl-config.json' }

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [TRAWL, ...args], { env })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** Runs `count` at a time: the machine has few cores. */
async function limited<T, R>(items: T[], count: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += count) out.push(...(await Promise.all(items.slice(i, i + count).map(fn))))
  return out
}

describe('help and version', () => {
  test('every command has its own --help on stdout, exit code 0, naming each of its flags', async () => {
    const runs = await limited(COMMANDS, 4, (c) => cli(...c.name.split(' '), '--help'))
    COMMANDS.forEach((command, i) => {
      const run = runs[i]!
      expect(run, command.name).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout).toBe(`${renderHelp(command)}\n`)
      expect(run.stdout.startsWith(`usage: trawl ${command.name}`)).toBe(true)
      for (const flag of Object.keys(command.flags)) expect(run.stdout, `${command.name} --${flag}`).toMatch(new RegExp(`--(\\[no-\\])?${flag}\\b`))
    })
  }, 300_000 /* about 40 process starts: 15 s alone, minutes inside a loaded full run */)

  test('flags come from the endpoint schemas, and never shadow the shared ones', () => {
    for (const command of COMMANDS) {
      const shared = Object.keys(globalFlags(command.globals))
      expect(
        Object.keys(command.flags).filter((f) => shared.includes(f)),
        command.name,
      ).toEqual([])
    }
    const search = COMMANDS.find((c) => c.name === 'search')!
    expect(Object.values(search.flags).map((f) => f.param)).toEqual(Object.keys(SearchParams.shape).filter((k) => k !== 'q'))
    const news = COMMANDS.find((c) => c.name === 'news')!
    expect(Object.values(news.flags).map((f) => f.param)).toEqual(Object.keys(VERTICAL_SPECS.news.schema.shape).filter((k) => k !== 'q'))
    expect(Object.keys(BATCH_TARGETS).sort()).toEqual([...BATCH_ENDPOINTS].sort())
  })

  test('--help, help <command>, group help and --version', async () => {
    const [top, version, helpOf, group, groupHelp, short] = await Promise.all([
      cli('--help'),
      cli('--version'),
      cli('help', 'monitor', 'create'),
      cli('help', 'keys'),
      cli('monitor', '--help'),
      cli('search', '-h', '--bogus'),
    ])
    expect(top).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: trawl <command> [options]') })
    expect(top.stdout).toContain('keys create|list|rotate|revoke')
    // The README's first command online is listed where a new user looks.
    expect(top.stdout).toMatch(/^ {2}engines check +live self-test/m)
    expect(top.stdout).toMatch(/^ {2}demo +a throwaway server answering from recorded result pages/m)
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' })
    expect(helpOf.stdout).toContain('usage: trawl monitor create <query...|url> [options]')
    expect(helpOf.stdout).toContain('--interval hourly|daily|weekly')
    expect(group.stdout).toMatch(/trawl keys rotate <key-id>\s+Give a key a new secret/)
    expect(groupHelp).toMatchObject({ code: 0, stdout: expect.stringContaining('trawl monitor pause <id>') })
    expect(short).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: trawl search <query...> [options]') })
  })

  test('command-line mistakes exit 2 with a usage on stderr', async () => {
    const [none, unknown, badSub, missingValue, flagFirst] = await Promise.all([
      cli('frobnicate'),
      cli('search', 'x', '--nope'),
      cli('monitor', 'frob'),
      cli('crawl', 'https://example.com', '--limit'),
      cli('--bogus'),
    ])
    expect(none).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('trawl: unknown command "frobnicate"') })
    expect(none.stderr).toContain('usage: trawl <command> [options]')
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--nope'") })
    expect(badSub).toMatchObject({ code: 2, stderr: expect.stringContaining('trawl: monitor: "frob" is not a command') })
    expect(badSub.stderr).toContain('trawl monitor list')
    expect(missingValue).toMatchObject({ code: 2, stderr: expect.stringContaining("Option '--limit <value>' argument missing") })
    expect(flagFirst).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option '--bogus' before the command") })
  })
})

describe('progress', () => {
  const sink = (isTTY: boolean) => {
    const written: string[] = []
    return { stream: { isTTY, columns: 200, write: (t: string) => written.push(t) }, written }
  }

  test('on a terminal, one line redrawn in place with a bar', () => {
    const { stream, written } = sink(true)
    const p = startProgress('crawl abc', { stream })
    p.update({ done: 1, total: 4, detail: 'pages read' })
    p.update({ done: 3, total: 4, detail: 'pages read' })
    p.finish('completed')
    expect(written).toEqual([
      '\r\x1b[2Kcrawl abc [######------------------]  25% 1/4 pages read',
      '\r\x1b[2Kcrawl abc [##################------]  75% 3/4 pages read',
      '\r\x1b[2Kcrawl abc: completed\n',
    ])
  })

  test('elsewhere, a plain line per change', () => {
    const { stream, written } = sink(false)
    const p = startProgress('batch (2 jobs)', { stream })
    p.update({ done: 0, total: 2, detail: 'jobs ended' })
    p.update({ done: 0, total: 2, detail: 'jobs ended' })
    p.update({ done: 1, total: 2, detail: 'jobs ended' })
    p.finish('2 done')
    expect(written).toEqual(['batch (2 jobs): 0/2 jobs ended\n', 'batch (2 jobs): 1/2 jobs ended\n', 'batch (2 jobs): 2 done\n'])
    const quiet = sink(false)
    startProgress('x', { stream: quiet.stream, quiet: true }).finish('done')
    expect(quiet.written).toEqual([])
  })
})
