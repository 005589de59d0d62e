/**
 * Builds the Startpage web search request: a form POST to /sp/search like the one its own search
 * box sends, carrying the per-session `sc` code read from the home page's search form. Language,
 * region, safe search and page size also ride in the `preferences` cookie its settings page sets
 * (`key EEE value` pairs joined by `N1N`).
 */

import { acceptLanguage } from '../accept-language.ts'
import type { SearchRequest } from '../engine.types.ts'
import { loadCheerio } from '../parse/cheerio-load.ts'

export const STARTPAGE_HOME = 'https://www.startpage.com/'
export const STARTPAGE_SEARCH = 'https://www.startpage.com/sp/search'

const baseLanguage = (language: string): string => (language.split('-')[0] ?? '').toLowerCase()

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36'

// Startpage has no hour: a day is its narrowest window.
const WITH_DATE: Record<NonNullable<SearchRequest['time']>, string> = { hour: 'd', day: 'd', week: 'w', month: 'm', year: 'y' }

// Startpage names its languages (the `language` / `lui` values of its settings page, as listed in
// SearXNG's searx/data/engine_traits.json); unknown ones fall back to english. Full tags are
// looked up before the base language (pt-BR is "brazilian", zh-TW "fantizhengwen").
const LANGUAGES: Record<string, string> = {
  en: 'english',
  de: 'deutsch',
  fr: 'francais',
  es: 'espanol',
  it: 'italiano',
  nl: 'nederlands',
  pt: 'portugues',
  'pt-br': 'brazilian',
  pl: 'polski',
  sv: 'svenska',
  da: 'dansk',
  nb: 'norsk',
  no: 'norsk',
  fi: 'suomi',
  tr: 'turkce',
  ru: 'russian',
  uk: 'ukrainian',
  he: 'hebrew',
  ar: 'arabic',
  ja: 'nihongo',
  ko: 'hangul',
  zh: 'jiantizhongwen',
  'zh-cn': 'jiantizhongwen',
  'zh-tw': 'fantizhengwen',
  'zh-hk': 'fantizhengwen',
  cs: 'czech',
  sk: 'slovak',
  sl: 'slovenian',
  hr: 'croatian',
  sr: 'serbian',
  hu: 'hungarian',
  ro: 'romanian',
  el: 'greek',
  ca: 'catalan',
  et: 'estonian',
  lt: 'lithuanian',
  lv: 'latvian',
  is: 'icelandic',
  vi: 'vietnamese',
  th: 'thai',
  id: 'indonesian',
  ms: 'malay',
  tl: 'tagalog',
  hi: 'hindi',
  bn: 'bengali',
  ta: 'tamil',
  ur: 'urdu',
  fa: 'persian',
  bg: 'bulgarian',
}

// Result regions (the `search_results_region` preference), by "language-country"; the first row
// of a country is its default. Anything else searches region "all".
const REGIONS: Record<string, string> = {
  'en-us': 'en_US',
  'en-gb': 'en-GB_GB',
  'en-au': 'en_AU',
  'en-ca': 'en_CA',
  'en-in': 'en_IN',
  'en-ie': 'en_IE',
  'en-nz': 'en_NZ',
  'en-sg': 'en_SG',
  'de-de': 'de_DE',
  'de-at': 'de_AT',
  'de-ch': 'de_CH',
  'fr-fr': 'fr_FR',
  'fr-be': 'fr_BE',
  'fr-ca': 'fr_CA',
  'fr-ch': 'fr_CH',
  'es-es': 'es_ES',
  'es-mx': 'es_MX',
  'es-ar': 'es_AR',
  'it-it': 'it_IT',
  'nl-nl': 'nl_NL',
  'nl-be': 'nl_BE',
  'pt-br': 'pt-BR_BR',
  'pt-pt': 'pt_PT',
  'pl-pl': 'pl_PL',
  'ru-ru': 'ru_RU',
  'uk-ua': 'uk_UA',
  'ja-jp': 'ja_JP',
  'ko-kr': 'ko_KR',
  'zh-cn': 'zh-CN_CN',
  'zh-tw': 'zh-TW_TW',
  'zh-hk': 'zh-TW_HK',
  'tr-tr': 'tr_TR',
  'cs-cz': 'cs_CZ',
  'sv-se': 'sv_SE',
  'da-dk': 'da_DK',
  'fi-fi': 'fi_FI',
  'nb-no': 'no_NO',
  'hu-hu': 'hu_HU',
  'ro-ro': 'ro_RO',
  'el-gr': 'el_GR',
  'vi-vn': 'vi_VN',
  'id-id': 'id_ID',
  'hi-in': 'hi_IN',
  'bg-bg': 'bg_BG',
}

export interface StartpageRequest {
  url: string
  headers: Record<string, string>
  form: Record<string, string>
  /** Results of the fetched page before the requested offset, to be dropped. */
  skip: number
}

/** The home page request the `sc` code is read from. */
export function startpageHomeRequest(language: string): { url: string; headers: Record<string, string> } {
  return { url: STARTPAGE_HOME, headers: browserHeaders(language) }
}

/** The `sc` code of the home page's search form, or undefined when the page has none. */
export function readScCode(html: string): string | undefined {
  const $ = loadCheerio(html)
  const input = $('form#search input[name="sc"]').first().attr('value') ?? $('input[name="sc"]').first().attr('value')
  return input?.trim() || undefined
}

/**
 * Startpage's family filter takes `none | moderate | heavy`, both as the form's `qadf` and as the
 * `disable_family_filter` preference (0/1 there was an invalid value that helped it spot
 * scripts: SearXNG PR #6119). safe=active is its strictest level.
 */
export const familyFilter = (safe: SearchRequest['safe']): 'none' | 'heavy' => (safe === 'active' ? 'heavy' : 'none')

/**
 * The search form with the fields of Startpage's own search box (2026 pages): `qsr=all` (the
 * region rides in the preference cookie) and no `abp`, which brings an immediate CAPTCHA
 * (SearXNG PR #6119). `abd` / `abe` are sent as 1, as SearXNG's engine has sent them through
 * every CAPTCHA fix to date; the saved 2026 pages' static forms carry 0.
 */
export function buildStartpageRequest(req: SearchRequest, sc: string): StartpageRequest {
  const lang = startpageLanguage(req.language)
  const region = startpageRegion(req.language, req.country)
  const filter = familyFilter(req.safe)
  // Startpage shows 10 or 20 results a page (a preference); pages are numbered from 1.
  const size = req.num >= 20 ? 20 : 10
  const start = Math.max(0, req.offset ?? (req.page - 1) * req.num)
  const page = Math.floor(start / size) + 1
  const form: Record<string, string> = {
    query: req.q,
    cat: 'web',
    t: 'device',
    sc,
    lui: lang,
    language: lang,
    abd: '1',
    abe: '1',
    qsr: 'all',
    qadf: filter,
    with_date: req.time ? WITH_DATE[req.time] : '',
  }
  if (page > 1) {
    form.page = String(page)
    form.segment = 'startpage.udog'
  }
  const preferences = [
    ['date_time', 'world'],
    ['disable_family_filter', filter],
    ['disable_open_in_new_window', '0'],
    ['enable_post_method', '1'],
    ['enable_proxy_safety_suggest', '0'],
    ['enable_stay_control', '0'],
    ['instant_answers', '0'],
    ['lang_homepage', `s/device/${lang === 'english' ? 'en' : baseLanguage(req.language)}/`],
    ['language', lang],
    ['language_ui', lang],
    ['num_of_results', String(size)],
    ['search_results_region', region],
    ['suggestions', '0'],
    ['wt_unit', 'celsius'],
  ]
  return {
    url: STARTPAGE_SEARCH,
    headers: {
      ...browserHeaders(req.language),
      Origin: 'https://www.startpage.com',
      Referer: STARTPAGE_HOME,
      'Sec-Fetch-Site': 'same-origin',
      Cookie: `preferences=${preferences.map(([k, v]) => `${k}EEE${encodeURIComponent(v ?? '')}`).join('N1N')}`,
    },
    form,
    skip: start % size,
  }
}

/** Startpage's name of a language: the full tag's ("pt-BR" → brazilian), else its base's, else english. */
export function startpageLanguage(language: string): string {
  return LANGUAGES[language.toLowerCase()] ?? LANGUAGES[baseLanguage(language)] ?? 'english'
}

/** The region for a language and country: the exact pair, else the country's default, else "all". */
export function startpageRegion(language: string, country: string): string {
  const cc = country.toLowerCase()
  const exact = REGIONS[`${baseLanguage(language)}-${cc}`]
  if (exact) return exact
  return Object.entries(REGIONS).find(([k]) => k.endsWith(`-${cc}`))?.[1] ?? 'all'
}
function browserHeaders(language: string): Record<string, string> {
  return {
    'User-Agent': UA,
    Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'Accept-Language': acceptLanguage(language),
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'none',
    'Upgrade-Insecure-Requests': '1',
  }
}
