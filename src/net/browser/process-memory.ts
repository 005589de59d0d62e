import { readdirSync, readFileSync } from 'node:fs'

/**
 * Memory of a process tree, read from Linux's /proc (the renderer's recycling rule and the
 * benchmark). Chromium is a tree (browser, zygotes, one renderer per site, utility processes), so
 * one pid's RSS says little. RSS adds pages shared between processes once per process; PSS
 * (smaps_rollup) divides each shared page among its users, so the sum is what the tree really
 * costs: the ceiling is checked against PSS when the kernel offers it.
 */

export interface TreeMemory {
  /** Sum of VmRSS over the tree, bytes. */
  rssBytes: number
  /** Sum of Pss over the tree, bytes (RSS when smaps_rollup cannot be read). */
  pssBytes: number
  processes: number
}

/** pid → parent pid of every process visible in /proc. */
function parents(): Map<number, number> {
  const out = new Map<number, number>()
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return out
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(Number(name), Number(fields[1]))
    } catch {
      // the process ended while we looked
    }
  }
  return out
}

/** `root` and all its descendants. */
export function processTree(root: number): number[] {
  const byParent = new Map<number, number[]>()
  for (const [pid, ppid] of parents()) {
    const list = byParent.get(ppid)
    if (list) list.push(pid)
    else byParent.set(ppid, [pid])
  }
  const out: number[] = []
  const stack = [root]
  while (stack.length > 0) {
    const pid = stack.pop()!
    out.push(pid)
    stack.push(...(byParent.get(pid) ?? []))
  }
  return out
}

function kbField(text: string, field: string): number | null {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)
  return m ? Number(m[1]) * 1024 : null
}

export function treeMemory(root: number): TreeMemory {
  let rssBytes = 0
  let pssBytes = 0
  let processes = 0
  for (const pid of processTree(root)) {
    try {
      const rss = kbField(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS') ?? 0
      let pss = rss
      try {
        pss = kbField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss') ?? rss
      } catch {
        // older kernels, or another user's process
      }
      rssBytes += rss
      pssBytes += pss
      processes++
    } catch {
      // gone
    }
  }
  return { rssBytes, pssBytes, processes }
}

/** The pid of the browser launched with `marker` among its arguments: the root of its tree (children carry --type=). */
export function findBrowserPid(marker: string): number | null {
  for (const pid of parents().keys()) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      if (args.includes(marker) && !args.some((a) => a.startsWith('--type='))) return pid
    } catch {
      // gone
    }
  }
  return null
}
