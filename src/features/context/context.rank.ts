import { analyzer, guessLanguageOfWords, stems, words } from '../../text/analyze.ts'
import { bm25Idf, bm25Tf } from '../../text/bm25.ts'
import { relatedWords } from '../../text/wordnet.ts'

/**
 * The lexical relevance of each chunk to the question (docs/context.md, "How passages are made"):
 *
 *   score = (BM25 of the chunk's words + 0.5 × BM25 of its headings + proximity + phrases
 *            + numbers + measures) × title factor × page factor × clutter factor
 *
 * Words are compared as stems, stop words left out, in the page's own language (text/analyze.ts).
 * Each word of the question is a group: its own stem (weight 1) and, for English, the words
 * WordNet relates to it (text/wordnet.ts: derived forms and pertainyms 0.6, synonyms 0.35, the
 * words of a rare word's definition 0.3, less for rarer senses); a group scores what its best term
 * scores in the chunk, so a chunk that says "grow" and "growth" is not counted twice. The title
 * and the whole page multiply what the chunk matches on its own instead of adding to it: a
 * related-article teaser on a page whose title matches gets nothing from that title. Proximity
 * rewards the question's words close together (a window of 12 words), which length normalisation
 * alone does not see in a long paragraph, and clutter (mostly links, credit and teaser lines) is
 * demoted. Within a page, the question's words
 * that the page's lead already holds (its subject) weigh less than the rest when ordering its
 * chunks, so the passage that answers outranks the lead that only names the subject (focusScores).
 * A question that asks for a measure ("how long", "how much", "how big") favours the chunks that
 * hold a number with a unit ("10 years", "eight hours", "$22.6bn"), which its own words do not
 * name, and one that asks "what time" the chunks that hold a time of day ("1 p.m.").
 */

export interface RankPage {
  title: string | null
  /** The page's declared language (its lang attribute), checked against its text. */
  language?: string | null
}

export interface RankChunk {
  page: number
  /** The chunk's Markdown. */
  text: string
  /** The lowercased words of its visible text (link and image targets dropped, a heading line that repeats the page's title left out). */
  words: readonly string[]
  /** The headings above it (those inside it are among its words). */
  headings: readonly string[]
}

const WEIGHT_RELATED = 0.6
const WEIGHT_SYNONYM = 0.35
/** A word of the definition of the question word's first sense: "teenager" → "juvenile" (weaker than a synonym). */
const WEIGHT_GLOSS = 0.3
const KIND_WEIGHT = { related: WEIGHT_RELATED, synonym: WEIGHT_SYNONYM, gloss: WEIGHT_GLOSS }
/** Each less frequent sense of a word weighs this much less than the one before. */
const SENSE_DECAY = 0.75
const HEADING_WEIGHT = 0.5
/** Up to this much more for a chunk whose page's title holds every word of the question. */
const TITLE_WEIGHT = 0.3
/** Up to this much more for the chunks of the page that matches the question best as a whole. */
const PAGE_WEIGHT = 0.3
const PROXIMITY_WEIGHT = 0.5
const PROXIMITY_WINDOW = 12
const PHRASE_WEIGHT = 0.3
/** Within a page, the question's words its lead holds (the page's topic) weigh this share when ordering its chunks (focusScores). */
const TOPIC_WEIGHT = 0.4
/** The page's lead: its first chunk with a clutter factor at least this (context.passages.ts gives the same one as the leads). */
const LEAD_CLUTTER = 0.6
/** Questions that ask for a number: each of their words with a number at most NUMBER_WINDOW words away adds this share of its weight. */
const NUMBER_WEIGHT = 0.5
const NUMBER_WINDOW = 3
/** Questions that ask for a measure: a chunk holding a number with a unit adds this × the weight of the question's heaviest word. */
const MEASURE_WEIGHT = 3

interface Term {
  stem: string
  weight: number
  /** A definition's word: too loose to tell that a page's lead names the question's word (focusScores). */
  loose?: boolean
}
interface Group {
  /** The question's own word, stemmed. */
  own: string
  terms: Term[]
}

/**
 * A question's words that frame it rather than say what it asks: "what does the author say…".
 * News attributes nearly every paragraph ("says", "said"), so they match everywhere but the answer.
 */
const FRAMING = new Set(['say', 'says', 'said', 'saying'])

/** The question's words as groups of weighted stems, for pages in `language`; `queryLanguage` adds its stop words. */
export function queryGroups(query: string, language: string, queryLanguage: string): Group[] {
  const a = analyzer(language)
  const q = analyzer(queryLanguage)
  const groups: Group[] = []
  const owns = new Set<string>()
  const list = words(query).filter((w) => !a.isStop(w) && !q.isStop(w) && !(queryLanguage === 'en' && FRAMING.has(w)))
  for (const w of list) {
    const own = a.stem(w)
    if (owns.has(own)) continue
    owns.add(own)
    groups.push({ own, terms: [{ stem: own, weight: 1 }] })
  }
  // WordNet is English: other languages keep their own words only.
  if (language !== 'en' || queryLanguage !== 'en') return groups
  const names = properNouns(query)
  list.forEach((w) => {
    if (names.has(w)) return
    const group = groups.find((g) => g.own === a.stem(w))!
    for (const r of relatedWords(w)) {
      const parts = words(r.word)
      if (parts.length !== 1 || a.isStop(parts[0]!)) continue
      const stem = a.stem(parts[0]!)
      if (owns.has(stem)) continue
      const weight = KIND_WEIGHT[r.kind] * SENSE_DECAY ** r.sense
      const known = group.terms.find((t) => t.stem === stem)
      if (known) known.weight = Math.max(known.weight, weight)
      else group.terms.push(r.kind === 'gloss' ? { stem, weight, loose: true } : { stem, weight })
    }
  })
  return groups
}

/**
 * The question's names: words written with a capital letter anywhere but at its start. WordNet's
 * senses of "John" (a toilet) or "Ford" (a river crossing) are not what the question means.
 */
function properNouns(query: string): Set<string> {
  const out = new Set<string>()
  for (const m of query.matchAll(/(?<=[\p{L}\p{N},;:'"’)\]]\s+)\p{Lu}[\p{L}\p{N}]*/gu)) out.add(m[0].toLowerCase())
  return out
}

/** A run of stems with its term frequencies. */
interface Doc {
  stems: (string | null)[]
  tf: Map<string, number>
  length: number
}
function doc(list: (string | null)[]): Doc {
  const tf = new Map<string, number>()
  let length = 0
  for (const s of list) {
    if (s === null) continue
    length++
    tf.set(s, (tf.get(s) ?? 0) + 1)
  }
  return { stems: list, tf, length }
}

/** Lines that credit, promote or navigate rather than say something (the reader keeps a few around an article). */
const CLUTTER_LINE =
  /^(?:[*_]*)(?:originally published|this (?:article|story|post) (?:was |has been )?(?:originally )?(?:published|adapted|updated)|provided by|more information:|(?:image|photo|picture) credit|credit:|(?:story )?timeline|related(?: articles| stories| posts| content| coverage)?:?$|read more|read next|recommended|you may also like|more from |follow us|share this|sign up|subscribe|©|copyright|all rights reserved|disclaimer|advertisement|sponsored|click here)/i
const LINK = /\[((?:!\[[^\]]*\]\([^)]*\)|[^\]])*)\]\([^)]*\)/g
/** An English question whose answer is a number, an amount, a date or a time. */
const ASKS_NUMBER =
  /^(?:how (?:many|much|long|far|old|big|large|tall|high|often|fast|deep|wide|heavy|deep|soon)|(?:in |by |at |until )?(?:what|which) (?:year|time|date|age|percentage|share|price|amount|number|size|score)|when\b|by how much)/i
const NUMBER = /^\p{N}+$/u
/** Numbers written as words, as English stems ("eight hours", "a dozen", "hundreds of"); "one" is too often not a number. */
const NUMBER_WORDS = new Set(
  'two three four five six seven eight nine ten eleven twelv thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenti thirti forti fifti sixti seventi eighti nineti hundr thousand million billion trillion dozen'.split(
    ' ',
  ),
)
const isNumber = (stem: string) => NUMBER.test(stem) || NUMBER_WORDS.has(stem)
/**
 * Questions that ask for a measure ("how long could he be locked up", "how big is the display",
 * "how much is the agency asking for"): their answer is a number with a unit ("10 years", "5.5
 * inches", "$22.6bn"), a word the question does not say.
 */
const ASKS_MEASURE = /^how (?:long|big|large|tall|high|far|deep|wide|heavy|much|old)\b/i
/**
 * "How much" also asks for money, which is written with a sign rather than a unit word ("roughly
 * $449,000"). Only then: "how big is the display" is not answered by "$10 off".
 */
const ASKS_MONEY = /^how much\b/i
const CURRENCY = /[$€£¥]\s?\p{N}/u
/** A question that asks for a time of day is answered by one: "1 p.m.", "4:25", "10.30am" (the stems lose them). */
const ASKS_CLOCK = /^(?:(?:at|by|until|from) )?what time\b/i
const CLOCK = /(?<![\p{L}\p{N}])(?:\d{1,2}(?:[:.]\d{2})?\s?[ap]\.?m\b|\d{1,2}:\d{2}(?!\d))/iu
/** Units of time, length, area, weight, volume, money, shares and data, and a text's length. */
const UNIT_WORDS = (
  'year month week day hour minute second decade century inch foot feet yard mile metre meter kilometre kilometer centimetre centimeter millimetre millimeter km cm mm acre hectare square mph ' +
  'pound ounce ton tonne gram kilogram kg lb gallon litre liter dollar euro yen cent billion million trillion bn percent gb tb mb age old word page'
).split(' ')
/** An amount written with its unit in one word: "22.6bn" gives "22" and "6bn". */
const AMOUNT = /^\p{N}+(?:bn|m|k|tn)$/u
/** A unit counts within this many words after a number ("10 years", "5.5-inches", "140,000 words"). */
const UNIT_WINDOW = 2
let unitStems: Set<string> | null = null

/** Whether the chunk's stems hold a number with a unit after it (English stems). */
function holdsMeasure(list: readonly (string | null)[]): boolean {
  if (!unitStems) {
    const en = analyzer('en')
    unitStems = new Set(UNIT_WORDS.map((w) => en.stem(w)))
  }
  for (let at = 0; at < list.length; at++) {
    const s = list[at]
    if (!s) continue
    if (AMOUNT.test(s)) return true
    if (!isNumber(s)) continue
    for (let k = at + 1; k <= Math.min(list.length - 1, at + UNIT_WINDOW); k++) {
      const u = list[k]
      if (u && unitStems.has(u)) return true
    }
  }
  return false
}

const IMAGE = /!\[([^\]]*)\]\([^)]*\)/g
const LINK_TARGET = /\]\([^)]*\)/g
const LINE_MARK = /^\s*(?:[-*+]|\d+\.|#{1,6}|>)\s+/

/**
 * How much of a chunk is clutter, as a factor: 1 for prose; down to 0.2 for a chunk made of lines
 * that are links alone (related-article teasers, tag lists, image links) or of credit and promotion
 * lines ("Originally published on", "Story Timeline", "Provided by"). The reader drops such blocks
 * by the same two signals (link-only lines, noise lines) where it recognises them; this weighs
 * what it kept. Prose with links inside its sentences is not clutter.
 */
export function clutterFactor(text: string): number {
  // Measured in characters of visible text: cheaper than words, and the same shares.
  let all = 0
  let linkOnly = 0
  let noisy = 0
  for (const line of text.split('\n')) {
    const bare = line.replace(LINE_MARK, '').trim()
    if (bare === '') continue
    const visible = bare.replace(IMAGE, '$1').replace(LINK_TARGET, ']').length
    if (visible === 0) continue
    all += visible
    let linked = 0
    for (const m of bare.matchAll(LINK)) linked += (m[1] ?? '').replace(IMAGE, '$1').length + 2
    if (linked / visible >= 0.8) linkOnly += visible
    if (CLUTTER_LINE.test(bare)) noisy += visible
  }
  if (all === 0) return 1
  const ramp = (share: number, from: number) => (share <= from ? 1 : 1 - 0.8 * Math.min(1, (share - from) / (1 - from)))
  return Math.max(0.2, Math.min(ramp(linkOnly / all, 0.3), ramp(noisy / all, 0.2)))
}

export interface LexicalRanking {
  /** Per chunk: its score (0: it matches no word of the question). */
  scores: number[]
  /** Per chunk: its clutter factor. */
  clutter: number[]
  /** Per page: the language its words were compared in. */
  languages: string[]
}

const round4 = (n: number) => Math.round(n * 1e4) / 1e4

/** Scores every chunk of every page against the question, as one collection. Deterministic. */
export function rankLexically(pages: readonly RankPage[], chunks: readonly RankChunk[], query: string, queryLanguage: string): LexicalRanking {
  // A page's language from its first words (about 600 are enough).
  const samples = pages.map(() => [] as string[])
  for (const c of chunks) {
    const sample = samples[c.page]!
    if (sample.length < 600) for (const w of c.words.slice(0, 600 - sample.length)) sample.push(w)
  }
  const languages = pages.map((p, i) => guessLanguageOfWords(samples[i]!, p.language, queryLanguage))
  const analyzers = languages.map((l) => analyzer(l))
  const groupsOf = new Map<string, Group[]>()
  for (const l of new Set(languages)) groupsOf.set(l, queryGroups(query, l, queryLanguage))

  const bodies = chunks.map((c) => doc(stems(c.words, analyzers[c.page]!)))
  // Headings repeat from chunk to chunk (a section's heading heads each of its chunks): one doc per
  // distinct list. A heading that repeats the page's title is left to the title factor.
  const titleKeys = pages.map((p) => ` ${words(p.title ?? '').join(' ')} `)
  const headingDocs = new Map<string, Doc>()
  const headings = chunks.map((c) => {
    const cacheKey = `${c.page}\u0000${c.headings.join('\u0000')}`
    let d = headingDocs.get(cacheKey)
    if (!d) {
      const t = titleKeys[c.page]!
      const kept = c.headings.filter((h) => {
        const k = ` ${words(h).join(' ')} `
        return k.trim() !== '' && (t.trim() === '' || !(t.includes(k) || k.includes(t)))
      })
      d = doc(stems(words(kept.join(' ')), analyzers[c.page]!))
      headingDocs.set(cacheKey, d)
    }
    return d
  })
  const titles = pages.map((p, i) => doc(stems(words(p.title ?? ''), analyzers[i]!)))
  const clutter = chunks.map((c) => clutterFactor(c.text))
  if (chunks.length === 0) return { scores: [], clutter, languages }

  // One collection: document frequencies over every chunk of every page.
  const n = chunks.length
  const df = new Map<string, number>()
  for (const d of bodies) for (const s of d.tf.keys()) df.set(s, (df.get(s) ?? 0) + 1)
  const idfs = new Map<string, number>()
  const idf = (stem: string) => {
    let v = idfs.get(stem)
    if (v === undefined) {
      v = bm25Idf(n, df.get(stem) ?? 0)
      idfs.set(stem, v)
    }
    return v
  }
  const avgBody = bodies.reduce((a, d) => a + d.length, 0) / n || 1
  const avgHeading = headings.reduce((a, d) => a + d.length, 0) / n || 1

  // The page factor: each page as one document, its words against the question.
  const pageDocs = pages.map((_, p) => {
    const tf = new Map<string, number>()
    let length = 0
    bodies.forEach((d, i) => {
      if (chunks[i]!.page !== p) return
      length += d.length
      for (const [s, f] of d.tf) tf.set(s, (tf.get(s) ?? 0) + f)
    })
    return { stems: [], tf, length }
  })
  const avgPage = pageDocs.reduce((a, d) => a + d.length, 0) / (pageDocs.length || 1) || 1
  const pageScores = pageDocs.map((d, p) => groupScore(d, groupsOf.get(languages[p]!)!, avgPage, idf))
  const bestPage = Math.max(0, ...pageScores)

  // The title factor: the share of the question's weight its page's title holds.
  const titleShare = titles.map((t, p) => {
    const groups = groupsOf.get(languages[p]!)!
    let held = 0
    let total = 0
    for (const g of groups) {
      total += idf(g.own)
      let best = 0
      for (const term of g.terms) if (t.tf.has(term.stem)) best = Math.max(best, term.weight * idf(term.stem))
      held += Math.min(best, idf(g.own))
    }
    return total > 0 ? held / total : 0
  })

  const asksNumber = queryLanguage === 'en' && ASKS_NUMBER.test(query.trim())
  const asksMeasure = queryLanguage === 'en' && ASKS_MEASURE.test(query.trim())
  const asksClock = queryLanguage === 'en' && ASKS_CLOCK.test(query.trim())
  const asksMoney = asksMeasure && ASKS_MONEY.test(query.trim())
  /** What the chunk matches on its own: its words, its headings, their closeness, numbers beside them. */
  const own = (i: number, groups: readonly Group[], terms: TermGroups) => {
    const body = groupScore(bodies[i]!, groups, avgBody, idf)
    if (body === 0) return 0
    const heading = groupScore(headings[i]!, groups, avgHeading, idf)
    const { proximity, phrases, numbers } = closeness(bodies[i]!.stems, groups, terms, idf)
    const text = chunks[i]!.text
    const typed =
      languages[chunks[i]!.page] === 'en' &&
      ((asksMeasure && (holdsMeasure(bodies[i]!.stems) || (asksMoney && CURRENCY.test(text)))) || (asksClock && CLOCK.test(text)))
        ? heaviest(groups, idf)
        : 0
    return (
      body +
      HEADING_WEIGHT * heading +
      PROXIMITY_WEIGHT * proximity +
      PHRASE_WEIGHT * phrases +
      (asksNumber ? NUMBER_WEIGHT * numbers : 0) +
      MEASURE_WEIGHT * typed
    )
  }
  const focused = focusScores(chunks, bodies, clutter, pages.length, (p) => groupsOf.get(languages[p]!)!, idf, own)
  const scores = chunks.map((c, i) => {
    const titleFactor = 1 + TITLE_WEIGHT * titleShare[c.page]!
    const pageFactor = 1 + (bestPage > 0 ? (PAGE_WEIGHT * pageScores[c.page]!) / bestPage : 0)
    return round4(focused[i]! * titleFactor * pageFactor * clutter[i]!)
  })
  return { scores, clutter, languages }
}

/** The heaviest of the question's words: its weight × idf. */
function heaviest(groups: readonly Group[], idf: (stem: string) => number): number {
  let max = 0
  for (const g of groups) max = Math.max(max, g.terms[0]!.weight * idf(g.own))
  return max
}

/** Σ over groups of the best weighted BM25 term score in `d`. */
function groupScore(d: Doc, groups: readonly Group[], avg: number, idf: (stem: string) => number): number {
  let score = 0
  for (const g of groups) {
    let best = 0
    for (const t of g.terms) {
      const f = d.tf.get(t.stem)
      if (f) best = Math.max(best, t.weight * idf(t.stem) * bm25Tf(f, d.length, avg))
    }
    score += best
  }
  return score
}

/**
 * Topic and focus, per page. The question's words that the page's lead holds (its first chunk that
 * is not clutter, the one the leads fallback gives) name what the page is about, as the question
 * names it ("the science fiction writer John M. Ford"): within the page they tell no passage from
 * another, and the lead, which holds them all, outranks the passage that answers ("diagnosed with
 * Type 1 diabetes"). So a page's chunks are ordered with those words at TOPIC_WEIGHT of their
 * weight, the rest of the question (its focus) deciding, then scaled so that the page's best chunk
 * keeps the score it has with every word at full weight: the pages still compete on the whole
 * question. (Discounting words for the whole collection, by their idf within the page or by the
 * title, let other pages' chunks overtake the right page's and was measured worse.)
 */
function focusScores(
  chunks: readonly RankChunk[],
  bodies: readonly Doc[],
  clutter: readonly number[],
  pageCount: number,
  groupsOfPage: (page: number) => Group[],
  idf: (stem: string) => number,
  own: (i: number, groups: readonly Group[], terms: TermGroups) => number,
): number[] {
  const leads = new Array<number>(pageCount).fill(-1)
  const firsts = new Array<number>(pageCount).fill(-1)
  chunks.forEach((c, i) => {
    if (firsts[c.page] === -1) firsts[c.page] = i
    if (leads[c.page] === -1 && clutter[i]! >= LEAD_CLUTTER) leads[c.page] = i
  })
  const plainTerms = new Map<Group[], TermGroups>()
  const pages = Array.from({ length: pageCount }, (_, p) => {
    const groups = groupsOfPage(p)
    const terms = plainTerms.get(groups) ?? termGroups(groups, idf)
    plainTerms.set(groups, terms)
    const lead = bodies[leads[p] === -1 ? firsts[p]! : leads[p]!]
    const topic = groups.map((g) => lead !== undefined && g.terms.some((t) => !t.loose && lead.tf.has(t.stem)))
    if (!topic.includes(true)) return { groups, terms, focus: null }
    const focus = groups.map((g, gi) => (topic[gi] ? { own: g.own, terms: g.terms.map((t) => ({ ...t, weight: t.weight * TOPIC_WEIGHT })) } : g))
    return { groups, terms, focus: { groups: focus, terms: termGroups(focus, idf) } }
  })
  const plain = chunks.map((c, i) => own(i, pages[c.page]!.groups, pages[c.page]!.terms))
  const focus = chunks.map((c, i) => {
    const f = pages[c.page]!.focus
    return f && plain[i]! > 0 ? own(i, f.groups, f.terms) : plain[i]!
  })
  const bestPlain = new Array<number>(pageCount).fill(0)
  const bestFocus = new Array<number>(pageCount).fill(0)
  chunks.forEach((c, i) => {
    bestPlain[c.page] = Math.max(bestPlain[c.page]!, plain[i]! * clutter[i]!)
    bestFocus[c.page] = Math.max(bestFocus[c.page]!, focus[i]! * clutter[i]!)
  })
  return chunks.map((c, i) => (bestFocus[c.page]! > 0 ? (focus[i]! * bestPlain[c.page]!) / bestFocus[c.page]! : 0))
}

/**
 * Proximity: the most question weight (each group's best term, weight × idf) found within
 * PROXIMITY_WINDOW words, less the heaviest single group (one word alone is not close to anything).
 * Phrases: the question's consecutive words found next to each other (a stop word between allowed).
 */
type TermGroups = Map<string, { group: number; value: number }[]>

/** Each stem of the question's groups → the groups it is in, with its weight × idf there. */
function termGroups(groups: readonly Group[], idf: (stem: string) => number): TermGroups {
  const out: TermGroups = new Map()
  groups.forEach((g, gi) => {
    for (const t of g.terms) {
      const value = t.weight * idf(t.stem)
      const list = out.get(t.stem)
      if (list) list.push({ group: gi, value })
      else out.set(t.stem, [{ group: gi, value }])
    }
  })
  return out
}

function closeness(
  list: readonly (string | null)[],
  groups: readonly Group[],
  terms: TermGroups,
  idf: (stem: string) => number,
): { proximity: number; phrases: number; numbers: number } {
  const hits: { at: number; group: number; value: number }[] = []
  for (let at = 0; at < list.length; at++) {
    const s = list[at]
    if (s === null || s === undefined) continue
    const groupsHit = terms.get(s)
    if (groupsHit) for (const h of groupsHit) hits.push({ at, group: h.group, value: h.value })
  }
  // Numbers next to the question's words: the answer to "how many games" is a number beside "games".
  let numbers = 0
  const counted = new Set<number>()
  for (const h of hits) {
    if (counted.has(h.group)) continue
    for (let at = Math.max(0, h.at - NUMBER_WINDOW); at <= Math.min(list.length - 1, h.at + NUMBER_WINDOW); at++) {
      const s = list[at]
      if (at !== h.at && s && isNumber(s)) {
        numbers += h.value
        counted.add(h.group)
        break
      }
    }
  }
  if (hits.length < 2) return { proximity: 0, phrases: 0, numbers }
  let proximity = 0
  const best = new Map<number, number>()
  for (let i = 0; i < hits.length; i++) {
    best.clear()
    let max = 0
    for (let j = i; j < hits.length && hits[j]!.at - hits[i]!.at < PROXIMITY_WINDOW; j++) {
      const h = hits[j]!
      best.set(h.group, Math.max(best.get(h.group) ?? 0, h.value))
    }
    if (best.size < 2) continue
    let mass = 0
    for (const v of best.values()) {
      mass += v
      max = Math.max(max, v)
    }
    proximity = Math.max(proximity, mass - max)
  }
  // Phrases: group g's own stem followed by group g+1's own stem, at most one word between.
  let phrases = 0
  for (let g = 0; g + 1 < groups.length; g++) {
    const a = groups[g]!.own
    const b = groups[g + 1]!.own
    for (let at = 0; at < list.length; at++) {
      if (list[at] !== a) continue
      if (list[at + 1] === b || (list[at + 1] === null && list[at + 2] === b)) {
        // Weighed as its words are: a page's topic words (focusScores) weigh less here too.
        phrases += (idf(a) * groups[g]!.terms[0]!.weight + idf(b) * groups[g + 1]!.terms[0]!.weight) / 2
        break
      }
    }
  }
  return { proximity, phrases, numbers }
}
