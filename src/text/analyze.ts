import { requireOnFirstUse } from '../paths.ts'

/**
 * Words as the context ranking compares them: lowercased, a possessive's "'s" dropped, the stop
 * words of their language left out, and the rest reduced to their Snowball stem (snowball-stemmers:
 * the Snowball project's algorithms for 24 languages), so that "growing" meets "grows" and
 * "vacancies" meets "vacancy". Stop words come from the `stopword` package (62 languages).
 *
 * Both packages are required at the first analysis, not at start (docs/performance.md). Stems
 * are remembered in a bounded cache per language: the Snowball port costs 7 to 15 µs a word,
 * and the same words come back request after request.
 */

interface SnowballModule {
  newStemmer(name: string): { stem(word: string): string }
}
type StopwordModule = Record<string, readonly string[]>

const snowball = requireOnFirstUse<SnowballModule>('snowball-stemmers')
const stopwords = requireOnFirstUse<StopwordModule>('stopword')

/** ISO 639-1 → the Snowball algorithm and the `stopword` list (ISO 639-3) for it, where the packages have them. */
const LANGUAGES: Record<string, { snowball?: string; stop?: string }> = {
  ar: { snowball: 'arabic', stop: 'ara' },
  ca: { snowball: 'catalan', stop: 'cat' },
  cs: { snowball: 'czech', stop: 'ces' },
  da: { snowball: 'danish', stop: 'dan' },
  de: { snowball: 'german', stop: 'deu' },
  en: { snowball: 'english', stop: 'eng' },
  es: { snowball: 'spanish', stop: 'spa' },
  eu: { snowball: 'basque', stop: 'eus' },
  fi: { snowball: 'finnish', stop: 'fin' },
  fr: { snowball: 'french', stop: 'fra' },
  ga: { snowball: 'irish', stop: 'gle' },
  hu: { snowball: 'hungarian', stop: 'hun' },
  hy: { snowball: 'armenian', stop: 'hye' },
  it: { snowball: 'italian', stop: 'ita' },
  nb: { snowball: 'norwegian', stop: 'nob' },
  nl: { snowball: 'dutch', stop: 'nld' },
  pt: { snowball: 'portuguese', stop: 'por' },
  ro: { snowball: 'romanian', stop: 'ron' },
  ru: { snowball: 'russian', stop: 'rus' },
  sl: { snowball: 'slovene', stop: 'slv' },
  sv: { snowball: 'swedish', stop: 'swe' },
  ta: { snowball: 'tamil' },
  tr: { snowball: 'turkish', stop: 'tur' },
  // Stop words only: no Snowball stemmer in the package.
  bg: { stop: 'bul' },
  el: { stop: 'ell' },
  fa: { stop: 'fas' },
  he: { stop: 'heb' },
  hi: { stop: 'hin' },
  hr: { stop: 'hrv' },
  id: { stop: 'ind' },
  ja: { stop: 'jpn' },
  ko: { stop: 'kor' },
  lt: { stop: 'lit' },
  lv: { stop: 'lav' },
  ms: { stop: 'msa' },
  pl: { stop: 'pol' },
  sk: { stop: 'slk' },
  th: { stop: 'tha' },
  uk: { stop: 'ukr' },
  vi: { stop: 'vie' },
  zh: { stop: 'zho' },
}
const ALIASES: Record<string, string> = { no: 'nb', nn: 'nb', iw: 'he', in: 'id' }

/**
 * Question words and modal verbs the English list lacks ("how", "what" and "which" are in it;
 * "when", "why" and "will" are not): a question's own wording, never what its answer says.
 */
const EXTRA_STOP: Record<string, readonly string[]> = {
  en: ['when', 'why', 'does', 'doing', 'whose', 'whom', 'according', 'will', 'would', 'might', 'may', 'could', 'should', 'shall', 'must', 'can'],
}

/** Languages whose stop words are counted to guess a page's language (those we stem, and Indonesian). */
const GUESSED = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'nb', 'fi', 'ru', 'id', 'tr', 'ro', 'hu', 'cs', 'ca']
/** Share of a text's words that are stop words of its language, at least (English prose: 40 % to 50 %). */
const PLAUSIBLE = 0.2

/** The base language of a BCP 47 tag we know ('en-US' → 'en'), else null. */
export function baseLanguage(tag: string | null | undefined): string | null {
  if (!tag) return null
  const base = tag.trim().toLowerCase().split(/[-_]/)[0] ?? ''
  const code = ALIASES[base] ?? base
  return code in LANGUAGES ? code : null
}

export interface Analyzer {
  language: string
  /** A stop word of the language (lowercased input), or a lone letter. */
  isStop(word: string): boolean
  /** The word's stem (lowercased input); the word itself where the language has no stemmer. */
  stem(word: string): string
}

const analyzers = new Map<string, Analyzer>()
const stopSets = new Map<string, ReadonlySet<string>>()

function stopSet(language: string): ReadonlySet<string> {
  let set = stopSets.get(language)
  if (!set) {
    const code = LANGUAGES[language]?.stop
    set = new Set([...(code ? (stopwords()[code] ?? []) : []), ...(EXTRA_STOP[language] ?? [])].map((w) => w.toLowerCase()))
    stopSets.set(language, set)
  }
  return set
}

/** Entries per generation of a language's stem cache: two generations, so at most twice this many. */
const STEM_CACHE = 20_000

/** The analyzer of a language (ISO 639-1, as baseLanguage gives it); unknown languages: lowercase words, no stop words. */
export function analyzer(language: string): Analyzer {
  const known = analyzers.get(language)
  if (known) return known
  const spec = LANGUAGES[language]
  const stemmer = spec?.snowball ? snowball().newStemmer(spec.snowball) : null
  const stops = stopSet(language)
  // Two generations: a stem looked up in the old one moves to the new one; when the new one is
  // full, the old one is dropped. A bounded cache without per-entry bookkeeping.
  let young = new Map<string, string>()
  let old = new Map<string, string>()
  const made: Analyzer = {
    language,
    isStop: (word) => stops.has(word) || (word.length === 1 && !/\p{N}/u.test(word) && /[a-z]/.test(word)),
    stem(word) {
      if (!stemmer) return word
      let s = young.get(word)
      if (s !== undefined) return s
      s = old.get(word) ?? stemmer.stem(word)
      if (young.size >= STEM_CACHE) {
        old = young
        young = new Map()
      }
      young.set(word, s)
      return s
    },
  }
  analyzers.set(language, made)
  return made
}

const POSSESSIVE = /(\p{L})['’]s(?![\p{L}\p{N}])/gu
const WORD = /[\p{L}\p{N}]+/gu

/** Lowercased words of a text, a possessive's "'s" dropped ("China's" → "china"). */
export function words(text: string): string[] {
  return text.toLowerCase().replace(POSSESSIVE, '$1').match(WORD) ?? []
}

/** The stems of `list` in place, stop words as null: positions stay those of the words. */
export function stems(list: readonly string[], a: Analyzer): (string | null)[] {
  return list.map((w) => (a.isStop(w) ? null : a.stem(w)))
}

/**
 * The language a text is written in: the declared one (a page's lang attribute) when its stop words
 * are a plausible share of the text's first words, else the language whose stop words are, else the
 * declared one, else `fallback`. Pages declare wrongly often enough to check (3 of the article
 * benchmark's 91 pages: English pages declared German, a German page declared English).
 */
export function guessLanguage(text: string, declared: string | null | undefined, fallback = 'en'): string {
  return guessLanguageOfWords(words(text.slice(0, 6000)).slice(0, 600), declared, fallback)
}

/** guessLanguage over the text's first words, already lowercased. */
export function guessLanguageOfWords(sample: readonly string[], declared: string | null | undefined, fallback = 'en'): string {
  const base = baseLanguage(declared)
  if (sample.length < 20) return base ?? fallback
  const share = (language: string) => {
    const set = stopSet(language)
    let n = 0
    for (const w of sample) if (set.has(w)) n++
    return n / sample.length
  }
  const own = base ? share(base) : 0
  if (base && own >= PLAUSIBLE) return base
  let best = base ?? fallback
  let bestShare = own
  for (const language of GUESSED) {
    if (language === base) continue
    const s = share(language)
    if (s > bestShare) {
      best = language
      bestShare = s
    }
  }
  return bestShare >= PLAUSIBLE ? best : (base ?? fallback)
}
