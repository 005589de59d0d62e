import { countTokensEach } from './tokens.ts'

/**
 * A page's Markdown cut into chunks of about MIN to MAX tokens at headings and paragraphs, with
 * the headings above each: what /v1/context ranks as passages and what schema extraction gives a
 * model as numbered sources. Offsets are JavaScript string indices into the Markdown.
 */

/** Chunk size in o200k tokens: a chunk is closed before it would pass MAX; one below MIN/2 runs on over a heading. */
export const MIN_CHUNK_TOKENS = 100
export const MAX_CHUNK_TOKENS = 300

export interface Block {
  start: number
  end: number
  /** 1–6 for an ATX heading, 0 otherwise. */
  level: number
  /** Heading text, for headings. */
  heading?: string
}

export interface Chunk {
  start: number
  end: number
  /** Estimated tokens (chars × the page's tokens-per-char); exact counts are made for passages only. */
  estTokens: number
  /** The headings in force where the chunk starts (outermost first), and those inside it. */
  headings: string[]
  /** Those in force where it starts only: the ones inside it are among its words. */
  above: string[]
  /** The innermost of those at its start, or the first inside it when it starts with one. */
  heading: string | null
}

interface OpenChunk {
  start: number
  end: number
  headings: string[]
  heading: string | null
  /** Headings met inside the chunk. */
  inner: string[]
  /** Holds nothing but headings yet: it never closes before the text they head. */
  onlyHeadings: boolean
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/
export const HEADING_LINE = /^ {0,3}#{1,6}[ \t].*$/gm
const FENCE = /^ {0,3}(`{3,}|~{3,})/

/** Paragraph-level blocks: runs of non-blank lines (fenced code kept whole); a heading line is a block of its own. */
export function scanBlocks(md: string): Block[] {
  const blocks: Block[] = []
  let blockStart = -1
  let blockEnd = -1
  let fence: string | null = null
  const close = () => {
    if (blockStart >= 0) pushTrimmed(md, blocks, blockStart, blockEnd, 0)
    blockStart = -1
  }
  let at = 0
  while (at <= md.length) {
    let nl = md.indexOf('\n', at)
    if (nl < 0) nl = md.length
    const line = md.slice(at, nl)
    if (fence) {
      if (line.trimStart().startsWith(fence)) fence = null
      blockEnd = nl
    } else if (line.trim() === '') {
      close()
    } else {
      const fenceOpen = FENCE.exec(line)
      const heading = fenceOpen ? null : HEADING.exec(line)
      if (heading) {
        close()
        pushTrimmed(md, blocks, at, nl, heading[1]!.length, heading[2]!)
      } else {
        if (fenceOpen) fence = fenceOpen[1]!.slice(0, 3)
        if (blockStart < 0) blockStart = at
        blockEnd = nl
      }
    }
    at = nl + 1
  }
  close()
  return blocks
}

function pushTrimmed(md: string, blocks: Block[], start: number, end: number, level: number, heading?: string) {
  let s = start
  let e = end
  while (s < e && /\s/.test(md[s]!)) s++
  while (e > s && /\s/.test(md[e - 1]!)) e--
  if (e > s) blocks.push(level ? { start: s, end: e, level, heading: heading ?? '' } : { start: s, end: e, level: 0 })
}

const SAMPLE_CHARS = 1500
const SHORT_SAMPLE = 200

/**
 * Tokens per character of each page, from a sample of it (o200k over the whole page costs more
 * than the rest of the work): what chunkBlocks sizes its chunks by.
 */
export async function tokensPerChar(mds: readonly string[]): Promise<number[]> {
  const samples = mds.map((md) => md.slice(0, SAMPLE_CHARS))
  const counted = samples.filter((sample) => sample.length >= SHORT_SAMPLE)
  const counts = await countTokensEach(counted)
  let next = 0
  return samples.map((sample) => (sample.length < SHORT_SAMPLE ? 0.25 : Math.max(0.1, counts[next++]! / sample.length)))
}

/** Cuts [start, end) into pieces of at most `maxChars`: at line ends, then sentence ends, then spaces, then anywhere. */
function splitSpan(md: string, start: number, end: number, maxChars: number): [number, number][] {
  const separators = [/\n/g, /[.!?…]["'”’)\]]*\s+/g, /\s+/g]
  const cut = (s: number, e: number, level: number): [number, number][] => {
    if (e - s <= maxChars) return [[s, e]]
    if (level >= separators.length) {
      const out: [number, number][] = []
      for (let i = s; i < e; i += maxChars) out.push([i, Math.min(e, i + maxChars)])
      return out
    }
    // Units end just after each separator.
    const units: [number, number][] = []
    const re = new RegExp(separators[level]!.source, 'g')
    re.lastIndex = 0
    const text = md.slice(s, e)
    let from = 0
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++
        continue
      }
      const to = m.index + m[0].length
      if (to > from) units.push([s + from, s + to])
      from = to
    }
    if (from < text.length) units.push([s + from, e])
    if (units.length <= 1) return cut(s, e, level + 1)
    const out: [number, number][] = []
    let pieceStart = -1
    let pieceEnd = -1
    for (const [us, ue] of units) {
      if (ue - us > maxChars) {
        if (pieceStart >= 0) out.push([pieceStart, pieceEnd])
        pieceStart = -1
        out.push(...cut(us, ue, level + 1))
        continue
      }
      if (pieceStart >= 0 && ue - pieceStart > maxChars) {
        out.push([pieceStart, pieceEnd])
        pieceStart = -1
      }
      if (pieceStart < 0) pieceStart = us
      pieceEnd = ue
    }
    if (pieceStart >= 0) out.push([pieceStart, pieceEnd])
    return out
  }
  return cut(start, end, 0)
}

/** Trims whitespace off both ends of [start, end); null when nothing is left. */
function trimSpan(md: string, start: number, end: number): [number, number] | null {
  let s = start
  let e = end
  while (s < e && /\s/.test(md[s]!)) s++
  while (e > s && /\s/.test(md[e - 1]!)) e--
  return e > s ? [s, e] : null
}

/**
 * Cuts a page's Markdown into chunks at headings and paragraphs, about MIN to MAX tokens each: a
 * heading closes the chunk before it unless that chunk is still under MIN/2 tokens (a heading
 * never ends a chunk on its own), a paragraph that would take a chunk past MAX starts the next
 * one, and a paragraph longer than MAX is cut at line, then sentence ends.
 */
export async function chunkPage(md: string): Promise<Chunk[]> {
  const [ratio] = await tokensPerChar([md])
  return chunkBlocks(md, scanBlocks(md), new Set(), ratio!)
}

/**
 * chunkPage over blocks already scanned, at `ratio` tokens a character (tokensPerChar); a block
 * whose start is in `isolated` (a syndicated paragraph) is a chunk of its own.
 */
export function chunkBlocks(md: string, blocks: readonly Block[], isolated: ReadonlySet<number>, ratio: number): Chunk[] {
  const est = (chars: number) => Math.ceil(chars * ratio)
  const maxChars = Math.floor(MAX_CHUNK_TOKENS / ratio)
  const chunks: Chunk[] = []
  const stack: { level: number; text: string }[] = []

  // Typed by a cast: TypeScript would otherwise narrow it to null, not seeing the closures assign it.
  let cur = null as OpenChunk | null
  const flush = () => {
    if (cur) {
      chunks.push({
        start: cur.start,
        end: cur.end,
        estTokens: est(cur.end - cur.start),
        headings: [...cur.headings, ...cur.inner],
        above: cur.headings,
        heading: cur.heading,
      })
    }
    cur = null
  }
  const open = (start: number, end: number, startsWithHeading: string | null) => {
    const outer = stack.map((h) => h.text)
    cur = { start, end, headings: outer, heading: startsWithHeading ?? outer.at(-1) ?? null, inner: [], onlyHeadings: startsWithHeading !== null }
  }
  const size = () => (cur ? est(cur.end - cur.start) : 0)

  for (const block of blocks) {
    if (isolated.has(block.start)) {
      // Alone (with the headings just above it, if any), so that its copies elsewhere are the same chunk and one is dropped.
      if (cur && !cur.onlyHeadings) flush()
      if (cur) cur.end = block.end
      else open(block.start, block.end, null)
      flush()
      continue
    }
    if (block.level > 0) {
      const text = block.heading ?? ''
      if (cur && !cur.onlyHeadings && size() >= MIN_CHUNK_TOKENS / 2) flush()
      while (stack.length > 0 && stack.at(-1)!.level >= block.level) stack.pop()
      if (cur) cur.end = block.end
      else open(block.start, block.end, text)
      cur!.inner.push(text)
      stack.push({ level: block.level, text })
      continue
    }
    const pieces = block.end - block.start > maxChars ? splitSpan(md, block.start, block.end, maxChars) : [[block.start, block.end] as [number, number]]
    for (const [ps, pe] of pieces) {
      const span = trimSpan(md, ps, pe)
      if (!span) continue
      const [s, e] = span
      if (cur && (cur.onlyHeadings || est(e - cur.start) <= MAX_CHUNK_TOKENS)) {
        cur.end = e
        cur.onlyHeadings = false
      } else {
        flush()
        open(s, e, null)
      }
    }
  }
  flush()
  return chunks
}
