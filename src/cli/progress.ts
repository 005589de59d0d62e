/**
 * Progress of a crawl or a batch on stderr (stdout stays the result, so `trawl crawl … > pages.md`
 * still shows progress): a live bar redrawn in place on a terminal, otherwise one plain line each
 * time the state changes, which reads well in CI logs and pipes.
 */

export interface ProgressState {
  done: number
  total: number
  /** After the counter: `3 failed, 12 queued`. */
  detail: string
}

export interface Progress {
  update(state: ProgressState): void
  /** Ends the bar (or prints the last line) with a closing sentence. */
  finish(text: string): void
  /** Leaves the bar as it is drawn and moves to a new line, so an error printed next starts on its own line. */
  stop(): void
}

export interface ProgressStream {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

const BAR_WIDTH = 24

export function progressBar(done: number, total: number, width = BAR_WIDTH): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 0
  const full = Math.round(ratio * width)
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${String(Math.round(ratio * 100)).padStart(3)}%`
}

/** `label` names the work: `crawl 1f3c…`, `batch (12 jobs)`. */
export function startProgress(label: string, opts: { stream?: ProgressStream; quiet?: boolean } = {}): Progress {
  const stream = opts.stream ?? process.stderr
  if (opts.quiet) return { update() {}, finish() {}, stop() {} }
  if (stream.isTTY) {
    let drawn = false
    return {
      update({ done, total, detail }) {
        const line = `${label} ${progressBar(done, total)} ${done}/${total}${detail ? ` ${detail}` : ''}`
        const max = stream.columns ? stream.columns - 1 : line.length
        stream.write(`\r\x1b[2K${line.slice(0, max)}`)
        drawn = true
      },
      finish(text) {
        stream.write(`${drawn ? '\r\x1b[2K' : ''}${label}: ${text}\n`)
        drawn = false
      },
      stop() {
        if (drawn) stream.write('\n')
        drawn = false
      },
    }
  }
  let last = ''
  return {
    update({ done, total, detail }) {
      const line = `${label}: ${done}/${total}${detail ? ` ${detail}` : ''}`
      if (line === last) return
      last = line
      stream.write(`${line}\n`)
    },
    finish(text) {
      stream.write(`${label}: ${text}\n`)
    },
    stop() {},
  }
}
