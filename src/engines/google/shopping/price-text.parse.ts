/**
 * Reads a price as Google displays it ("$1,299.00", "1.299,00 €", "CHF 1’299.–", "₹1,23,456")
 * into a number and an ISO 4217 currency. Pure and locale-agnostic: the separators are worked out
 * from the digits themselves, and the country only settles symbols several currencies share ($,
 * ¥, kr, Rs).
 */

export interface PriceValue {
  value?: number
  currency?: string
}

// Prefixed dollar signs and other multi-character symbols, longest first so "CA$" wins over "$".
const PREFIXED_SYMBOLS: [string, string][] = [
  ['US$', 'USD'],
  ['CA$', 'CAD'],
  ['AU$', 'AUD'],
  ['NZ$', 'NZD'],
  ['HK$', 'HKD'],
  ['SG$', 'SGD'],
  ['MX$', 'MXN'],
  ['NT$', 'TWD'],
  ['RD$', 'DOP'],
  ['R$', 'BRL'],
  ['C$', 'CAD'],
  ['A$', 'AUD'],
  ['S$', 'SGD'],
  ['E£', 'EGP'],
]

const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₫': 'VND',
  '฿': 'THB',
  '₱': 'PHP',
  '₴': 'UAH',
  '₦': 'NGN',
  '₸': 'KZT',
  '₡': 'CRC',
  '₲': 'PYG',
  '₵': 'GHS',
  '₼': 'AZN',
  '₾': 'GEL',
  '৳': 'BDT',
}

// Letter symbols, matched as whole words (so "Rs" does not fire inside a merchant name).
const WORD_SYMBOLS: Record<string, string> = {
  zł: 'PLN',
  zl: 'PLN',
  kč: 'CZK',
  ft: 'HUF',
  lei: 'RON',
  лв: 'BGN',
  'лв.': 'BGN',
  'руб.': 'RUB',
  руб: 'RUB',
  'р.': 'RUB',
  rm: 'MYR',
  rp: 'IDR',
  'fr.': 'CHF',
  din: 'RSD',
  kn: 'HRK',
  tl: 'TRY',
  'د.إ': 'AED',
  'ر.س': 'SAR',
}

/** Currencies whose symbol is "$" in the country, by country code; elsewhere "$" is the US dollar. */
const DOLLAR_COUNTRIES: Record<string, string> = {
  us: 'USD',
  ca: 'CAD',
  au: 'AUD',
  nz: 'NZD',
  sg: 'SGD',
  hk: 'HKD',
  tw: 'TWD',
  mx: 'MXN',
  ar: 'ARS',
  cl: 'CLP',
  co: 'COP',
  uy: 'UYU',
  br: 'BRL',
  ec: 'USD',
  sv: 'USD',
  pa: 'USD',
  pr: 'USD',
  do: 'DOP',
  jm: 'JMD',
  tt: 'TTD',
  bs: 'BSD',
  bz: 'BZD',
  na: 'NAD',
  fj: 'FJD',
  bn: 'BND',
  lr: 'LRD',
  gy: 'GYD',
  sr: 'SRD',
}

const KRONA_COUNTRIES: Record<string, string> = { se: 'SEK', dk: 'DKK', no: 'NOK', is: 'ISK', fo: 'DKK', gl: 'DKK' }
const RUPEE_COUNTRIES: Record<string, string> = { in: 'INR', pk: 'PKR', lk: 'LKR', np: 'NPR', mu: 'MUR', sc: 'SCR' }

// ISO codes shoppers see spelled out ("CHF 49.90", "1 299 SEK"). Limited to real codes so a
// model number in the text ("RTX 4090") is not read as a currency.
const ISO_CODES = new Set(
  (
    'USD EUR GBP JPY CNY CHF CAD AUD NZD HKD SGD TWD KRW INR IDR MYR THB PHP VND SEK NOK DKK ISK PLN CZK HUF RON BGN HRK RSD ' +
    'RUB UAH TRY ILS AED SAR QAR KWD BHD OMR JOD EGP MAD TND ZAR NGN KES GHS BRL MXN ARS CLP COP PEN UYU PYG BOB DOP CRC ' +
    'GTQ HNL NIO PKR LKR NPR BDT KZT GEL AZN AMD'
  ).split(' '),
)

// Minor units per currency where it is not 2 (ISO 4217): a lone separator followed by three
// digits is a decimal point in these ("KWD 1.250"), a thousands separator everywhere else.
const THREE_DECIMALS = new Set(['KWD', 'BHD', 'OMR', 'JOD', 'TND', 'LYD', 'IQD'])

const GROUPING = /[\s\u00a0\u202f\u2009\u2007'’`´]/g
const AMOUNT = /\d(?:[\d.,\s\u00a0\u202f\u2009\u2007'’`´]*\d)?/

/**
 * Parses the first price in `text`. `country` (ISO 3166 alpha-2, any case) resolves ambiguous
 * symbols; without it "$" is read as USD, "¥" as JPY and "kr" as SEK.
 */
export function parsePriceText(text: string | undefined, country?: string): PriceValue {
  if (!text) return {}
  const cleaned = text.replace(/[\u200b-\u200f\u202a-\u202e\u2060\ufeff]/g, '').trim()
  if (!cleaned) return {}
  const cc = country?.toLowerCase()
  const amount = AMOUNT.exec(cleaned)
  // The currency nearest to the amount: a price text can also carry a strike-through price or
  // "+ $5 shipping" after it, so look just around the first number.
  const around = amount ? cleaned.slice(Math.max(0, amount.index - 8), amount.index + amount[0].length + 8) : cleaned
  const currency = currencyOf(around, cc) ?? currencyOf(cleaned, cc)
  if (!amount) return currency ? { currency } : {}
  const value = amountOf(amount[0], currency)
  const out: PriceValue = {}
  if (value !== undefined) out.value = value
  if (currency) out.currency = currency
  return out
}

/** ISO 4217 code for the symbol or code in `text`, or undefined. */
export function currencyOf(text: string, country?: string): string | undefined {
  const cc = country?.toLowerCase()
  const upper = text.toUpperCase()
  for (const m of upper.matchAll(/(?<![A-Z])([A-Z]{3})(?![A-Z])/g)) {
    const code = m[1] as string
    if (ISO_CODES.has(code)) return code
  }
  for (const [symbol, code] of PREFIXED_SYMBOLS) {
    if (upper.includes(symbol.toUpperCase())) return code
  }
  for (const ch of text) {
    const code = SYMBOLS[ch]
    if (code) return code
  }
  if (text.includes('원')) return 'KRW'
  if (text.includes('¥') || text.includes('￥') || text.includes('円') || text.includes('元')) {
    if (text.includes('元') || cc === 'cn') return 'CNY'
    return 'JPY'
  }
  const lower = text.toLowerCase()
  for (const [word, code] of Object.entries(WORD_SYMBOLS)) {
    if (wordIn(lower, word)) return code
  }
  if (wordIn(lower, 'kr') || wordIn(lower, 'kr.')) return KRONA_COUNTRIES[cc ?? ''] ?? 'SEK'
  if (wordIn(lower, 'rs') || wordIn(lower, 'rs.') || text.includes('₨')) return RUPEE_COUNTRIES[cc ?? ''] ?? 'INR'
  if (text.includes('$')) return DOLLAR_COUNTRIES[cc ?? ''] ?? 'USD'
  // A bare "R" is the rand only where the rand is the local currency; elsewhere it is too likely a letter.
  if (cc === 'za' && /(^|[^A-Za-z])R\s?\d/.test(text)) return 'ZAR'
  return undefined
}

function wordIn(lower: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(^|[^\\p{L}])${escaped}(?=$|[^\\p{L}])`, 'u').test(lower)
}

/** "1,299.00" → 1299, "1.299,00" → 1299, "1 299" → 1299, "12,5" → 12.5. */
function amountOf(raw: string, currency: string | undefined): number | undefined {
  const s = raw.replace(GROUPING, '')
  const lastDot = s.lastIndexOf('.')
  const lastComma = s.lastIndexOf(',')
  let decimalSep: string | undefined
  if (lastDot >= 0 && lastComma >= 0) {
    // Both present: whichever comes last separates the decimals ("1,299.00", "1.299,00").
    decimalSep = lastDot > lastComma ? '.' : ','
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ','
    const count = s.split(sep).length - 1
    const after = s.length - s.lastIndexOf(sep) - 1
    // One separator and not exactly three digits after it is a decimal point ("12,5", "9.99").
    // Three digits are a thousands group ("1,299", "1.299") unless the currency has three decimals.
    if (count === 1 && (after !== 3 || (currency && THREE_DECIMALS.has(currency)))) decimalSep = sep
  }
  let normalised = s
  if (decimalSep) {
    const thousands = decimalSep === '.' ? ',' : '.'
    normalised = s.split(thousands).join('')
    const i = normalised.lastIndexOf(decimalSep)
    normalised = `${normalised.slice(0, i).split(decimalSep).join('')}.${normalised.slice(i + 1)}`
  } else {
    normalised = s.replace(/[.,]/g, '')
  }
  const n = Number(normalised)
  return Number.isFinite(n) ? n : undefined
}
