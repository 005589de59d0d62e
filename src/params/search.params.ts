import { z } from 'zod'
import { MAX_ENGINE_LIST } from '../engines/registry.ts'

/**
 * Parameter schemas shared by every search vertical (the OpenAPI document lists each endpoint's). Each vertical's schema
 * picks the ones that apply to it, so a parameter outside its list is an unknown-parameter 400.
 */

/**
 * CLDR's English region names, made at the first country or location a request names: the ICU
 * data behind them stays out of an idle server's memory (a few MB of the node binary's pages).
 */
let regionNames: Intl.DisplayNames | undefined
function regionName(code: string) {
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' })
  return regionNames.of(code)
}

/** Codes CLDR names that are not countries (private-use, groupings, pseudo-locales). */
const NOT_COUNTRIES = new Set(['ZZ', 'EU', 'EZ', 'UN', 'QO', 'XA', 'XB'])

function isRegion(code: string) {
  const upper = code.toUpperCase()
  if (NOT_COUNTRIES.has(upper)) return false
  try {
    return regionName(upper) !== upper
  } catch {
    return false
  }
}

/**
 * A current ISO 3166 code. CLDR still names withdrawn codes after the country that replaced them
 * (FX "France", UK, DD "Germany", YU, ZR, TP, BU…): their canonical form is the other code.
 */
function isCurrentCode(code: string) {
  return Intl.getCanonicalLocales(`und-${code}`)[0] === `und-${code}`
}

/** Every country name the location lookup knows (CLDR English names) -> lower-case code; current codes only. */
export function countryNames(): ReadonlyMap<string, string> {
  if (countryNamesMade) return countryNamesMade
  const map = new Map<string, string>()
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b)
      if (isRegion(code) && isCurrentCode(code)) map.set(regionName(code) as string, code.toLowerCase())
    }
  }
  countryNamesMade = map
  return map
}
let countryNamesMade: ReadonlyMap<string, string> | undefined

// Everyday and Google-location names CLDR spells differently. They never replace a CLDR name.
const OTHER_COUNTRY_NAMES: Record<string, string> = {
  usa: 'us',
  'united states of america': 'us',
  uk: 'gb',
  'great britain': 'gb',
  england: 'gb',
  scotland: 'gb',
  wales: 'gb',
  'northern ireland': 'gb',
  'hong kong': 'hk',
  macao: 'mo',
  macau: 'mo',
  'czech republic': 'cz',
  turkey: 'tr',
  'ivory coast': 'ci',
  myanmar: 'mm',
  burma: 'mm',
  'democratic republic of the congo': 'cd',
  'dr congo': 'cd',
  'republic of the congo': 'cg',
  'the bahamas': 'bs',
  'the gambia': 'gm',
  'the netherlands': 'nl',
  palestine: 'ps',
  'east timor': 'tl',
  swaziland: 'sz',
  macedonia: 'mk',
  'cabo verde': 'cv',
}

/** Lookup key: case, accents, curly apostrophes, "&" for "and" and "St." for "Saint" do not matter. */
function nameKey(name: string) {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/\s*&\s*/g, ' and ')
    .replace(/\bst\.?\s/g, 'saint ')
    .replace(/\s+/g, ' ')
    .trim()
}

let countryByKey: Map<string, string> | undefined
function countryByKeyMap() {
  if (countryByKey) return countryByKey
  const map = new Map<string, string>()
  for (const [name, code] of countryNames()) map.set(nameKey(name), code)
  // Exact names first: another name must not take a country name (Georgia, not a US-state alias).
  for (const [name, code] of Object.entries(OTHER_COUNTRY_NAMES)) if (!map.has(nameKey(name))) map.set(nameKey(name), code)
  countryByKey = map
  return map
}

/** The country a location names last ("Paris, France" -> fr), if it is a country name. */
export function countryFromLocation(location: string): string | undefined {
  const last = location.split(',').pop()
  return last ? countryByKeyMap().get(nameKey(last)) : undefined
}

export const q = z.string({ error: 'q must be a string' }).trim().min(1, 'q must not be empty').max(2048, 'q must be at most 2,048 characters')

export const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'country must be a two-letter ISO code such as us or de')
  .refine(isRegion, 'country must be a two-letter ISO code such as us or de')
  .transform((s) => s.toLowerCase())

export const language = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z]{2}|-[A-Za-z]{4})?$/, 'language must be a language code with an optional region, such as en or pt-BR')
  .transform((s) => {
    const [lang, region] = s.split('-')
    return region ? `${lang?.toLowerCase()}-${region.length === 2 ? region.toUpperCase() : region}` : (lang ?? '').toLowerCase()
  })

export const location = z.string().trim().min(1, 'location must not be empty').max(256, 'location must be at most 256 characters')
export const uule = z.string().regex(/^[A-Za-z0-9+/=_ -]{4,512}$/, 'uule must be a search-engine-encoded location string')
export const ll = z.string().regex(/^@-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?,\d{1,2}(\.\d+)?z$/, 'll must look like @40.7455096,-74.0083012,14z')

// A set of literals, not a refined number: the OpenAPI document (and the SDK typed from it) lists the values.
export const num = z.literal([10, 20, 30, 50, 100], { error: 'num must be one of 10, 20, 30, 50, 100' })

/** An integer from `min` to `max`, its errors naming the parameter. */
export function intBetween(name: string, min: number, max: number) {
  return z
    .number({ error: `${name} must be an integer between ${min} and ${max}` })
    .int(`${name} must be an integer between ${min} and ${max}`)
    .min(min, `${name} must be between ${min} and ${max}`)
    .max(max, `${name} must be between ${min} and ${max}`)
}

export const page = intBetween('page', 1, 10)

export const time = z.enum(['hour', 'day', 'week', 'month', 'year'], { error: 'time must be one of hour, day, week, month, year' })
export const tbs = z.string().min(1).max(256, 'tbs must be at most 256 characters')
export const safe = z.enum(['off', 'active'], { error: 'safe must be off or active' })
export const device = z.enum(['desktop', 'mobile'], { error: 'device must be desktop or mobile' })
export const flag = (name: string) => z.boolean({ error: `${name} must be true or false` })
export const format = z.enum(['json', 'compact', 'markdown'], { error: 'format must be json, compact or markdown' })
export const fields = z.string().min(1, 'fields must not be empty').max(1024, 'fields must be at most 1,024 characters')
export const maxAge = z
  .number({ error: 'max_age must be a number of seconds' })
  .int('max_age must be a whole number of seconds')
  .min(0, 'max_age must be 0 or more seconds')
  .max(31_536_000, 'max_age must be at most 31,536,000 seconds (a year)')

/** `example.com`, `example.com/blog`, or a TLD such as `.gov`. */
const domainEntry = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(\.[a-z]{2,63}|([a-z0-9-]+\.)+[a-z0-9-]{2,63}(\/[^\s]*)?)$/, 'must be a domain (example.com), a path prefix (example.com/blog) or a TLD (.gov)')
  .transform((s) => s.replace(/^https?:\/\//, '').replace(/^www\./, ''))

export const domainList = (name: string) =>
  z
    .array(domainEntry, { error: `${name} must be a list of domains` })
    .min(1, `${name} must not be empty`)
    .max(20, `${name} may list at most 20 entries`)

export const engine = z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_ENGINE_LIST)], {
  error: 'engine must be a provider name, auto, or a list of provider names',
})
