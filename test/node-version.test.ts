import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { nodeVersionProblem } from '../bin/node-version.mjs'

/**
 * Every entry point stops on a Node.js older than 22 with one line, before a native module can crash
 * the process with a bare segmentation fault. Debian's own node (20 on these machines) is the real
 * old Node, when the machine has it.
 */
const OLD_NODE = '/usr/bin/node'
const oldMajor = existsSync(OLD_NODE) ? Number(spawnSync(OLD_NODE, ['-p', 'process.versions.node.split(".")[0]']).stdout.toString()) : 0

describe('the Node.js version check', () => {
  test('names the version found, the one needed and how to get it; recent versions pass', () => {
    expect(nodeVersionProblem('20.20.2')).toBe(
      'trawl needs Node.js 22 or later (24 LTS recommended); this is Node.js 20.20.2. Install it with nvm (nvm install 24), use the Docker image, or in a checkout run: source .ci/use-node.sh',
    )
    expect(nodeVersionProblem('v18.0.0')).toMatch(/this is Node\.js 18\.0\.0\./)
    expect(nodeVersionProblem('22.0.0')).toBeNull()
    expect(nodeVersionProblem(process.versions.node)).toBeNull()
  })

  test.skipIf(!(oldMajor > 0 && oldMajor < 22))('an old node stops `trawl demo` and the benchmarks with that one line, exit 1, nothing started', () => {
    for (const args of [
      ['bin/trawl.mjs', 'demo'],
      ['bin/trawl.mjs', 'serve'],
      ['bin/run-ts.mjs', 'bench/pow.bench.ts'],
    ]) {
      const run = spawnSync(OLD_NODE, args, { encoding: 'utf8', timeout: 20_000 })
      expect(run.status, args.join(' ')).toBe(1)
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^trawl needs Node\.js 22 or later .*this is Node\.js \d+\./)])
      expect(run.stdout).toBe('')
    }
  })
})
