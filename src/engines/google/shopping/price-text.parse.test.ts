import { describe, expect, test } from 'vitest'
import { currencyOf, parsePriceText } from './price-text.parse.ts'

describe('parsePriceText: separators worked out from the digits', () => {
  test.each([
    ['$1,299.00', 'us', 1299, 'USD'],
    ['$89.95', 'us', 89.95, 'USD'],
    ['$130.00', 'us', 130, 'USD'],
    ['$1,299', 'us', 1299, 'USD'],
    ['$12,345,678.90', 'us', 12345678.9, 'USD'],
    ['1.299,00 €', 'de', 1299, 'EUR'],
    ['1.299 €', 'de', 1299, 'EUR'],
    ['39,99\u00a0€', 'fr', 39.99, 'EUR'],
    ['1\u202f299,00\u00a0€', 'fr', 1299, 'EUR'],
    ['1 299,50 €', 'fr', 1299.5, 'EUR'],
    ['€1.299,00', 'ie', 1299, 'EUR'],
    ['€ 0,99', 'nl', 0.99, 'EUR'],
    ['12,5 €', 'de', 12.5, 'EUR'],
    ['£12.50', 'gb', 12.5, 'GBP'],
    ['£1,049', 'gb', 1049, 'GBP'],
    ['CHF 1’299.00', 'ch', 1299, 'CHF'],
    ["CHF 1'299.–", 'ch', 1299, 'CHF'],
    ['Fr. 49.90', 'ch', 49.9, 'CHF'],
    ['₹1,23,456.00', 'in', 123456, 'INR'],
    ['₹ 2,499', 'in', 2499, 'INR'],
    ['Rs. 1,299', 'pk', 1299, 'PKR'],
    ['R$ 3.499,90', 'br', 3499.9, 'BRL'],
    ['R$ 3.499', 'br', 3499, 'BRL'],
    ['¥1,299', 'jp', 1299, 'JPY'],
    ['￥12,800', 'jp', 12800, 'JPY'],
    ['¥1,299.00', 'cn', 1299, 'CNY'],
    ['₩1,290,000', 'kr', 1290000, 'KRW'],
    ['129,000원', 'kr', 129000, 'KRW'],
    ['1 299 kr', 'se', 1299, 'SEK'],
    ['1.299,00 kr.', 'dk', 1299, 'DKK'],
    ['kr 1 299,-', 'no', 1299, 'NOK'],
    ['1 299,00 zł', 'pl', 1299, 'PLN'],
    ['1 299 Kč', 'cz', 1299, 'CZK'],
    ['12 990 Ft', 'hu', 12990, 'HUF'],
    ['1.299,99 lei', 'ro', 1299.99, 'RON'],
    ['12 990 ₽', 'ru', 12990, 'RUB'],
    ['1.299,00 TL', 'tr', 1299, 'TRY'],
    ['₺1.299,00', 'tr', 1299, 'TRY'],
    ['₪ 1,299.90', 'il', 1299.9, 'ILS'],
    ['Rp 1.299.000', 'id', 1299000, 'IDR'],
    ['Rp12.500', 'id', 12500, 'IDR'],
    ['RM 1,299.00', 'my', 1299, 'MYR'],
    ['฿1,299', 'th', 1299, 'THB'],
    ['₱1,299.00', 'ph', 1299, 'PHP'],
    ['1.299.000 ₫', 'vn', 1299000, 'VND'],
    ['R 1 299,99', 'za', 1299.99, 'ZAR'],
    ['KWD 1.250', 'kw', 1.25, 'KWD'],
    ['AED 1,299.00', 'ae', 1299, 'AED'],
    ['1 299 SEK', undefined, 1299, 'SEK'],
  ])('%s (%s) → %s %s', (text, country, value, currency) => {
    const parsed = parsePriceText(text, country)
    expect(parsed.value).toBe(value)
    expect(parsed.currency).toBe(currency)
  })
})

describe('parsePriceText: which dollar, yen or krona', () => {
  test.each([
    ['$1,299.00', 'ca', 'CAD'],
    ['$1,299.00', 'au', 'AUD'],
    ['$1,299.00', 'nz', 'NZD'],
    ['$12.990', 'cl', 'CLP'],
    ['$ 1.299,00', 'ar', 'ARS'],
    ['$1,299.00', 'mx', 'MXN'],
    ['$1,299.00', 'de', 'USD'],
    ['$1,299.00', undefined, 'USD'],
    ['CA$1,299.99', 'us', 'CAD'],
    ['C$ 1,299.99', 'us', 'CAD'],
    ['A$2,499.00', 'us', 'AUD'],
    ['AU$2,499.00', 'us', 'AUD'],
    ['NZ$99.00', 'au', 'NZD'],
    ['HK$1,299', 'us', 'HKD'],
    ['S$1,299', 'us', 'SGD'],
    ['NT$1,299', 'us', 'TWD'],
    ['MX$1,299', 'us', 'MXN'],
    ['US$ 12', 'ca', 'USD'],
    ['¥1,299', undefined, 'JPY'],
    ['1 299 kr', undefined, 'SEK'],
    ['1 299 kr', 'is', 'ISK'],
    ['Rs. 1,299', 'in', 'INR'],
    ['Rs 1,299', 'lk', 'LKR'],
  ])('%s in %s is %s', (text, country, currency) => {
    expect(parsePriceText(text, country).currency).toBe(currency)
  })
})

describe('parsePriceText: surrounding text', () => {
  test('the first amount is the price; the currency is the one next to it', () => {
    expect(parsePriceText('$89.95 $150', 'us')).toEqual({ value: 89.95, currency: 'USD' })
    expect(parsePriceText('45,50 €65 €', 'fr')).toEqual({ value: 45.5, currency: 'EUR' })
    expect(parsePriceText('From $89.95', 'us')).toEqual({ value: 89.95, currency: 'USD' })
    expect(parsePriceText('$10.99 – $24.99', 'us')).toEqual({ value: 10.99, currency: 'USD' })
    expect(parsePriceText('Now $1,299.00 + $5.99 shipping', 'us')).toEqual({ value: 1299, currency: 'USD' })
  })

  test('text without an amount gives only what it has', () => {
    expect(parsePriceText('Free', 'us')).toEqual({})
    expect(parsePriceText('€', 'de')).toEqual({ currency: 'EUR' })
    expect(parsePriceText('', 'us')).toEqual({})
    expect(parsePriceText(undefined)).toEqual({})
  })

  test('direction marks and no-break spaces are ignored', () => {
    expect(parsePriceText('\u200f1\u00a0299,00\u00a0€\u200e', 'fr')).toEqual({ value: 1299, currency: 'EUR' })
  })

  test('an amount without a currency still yields the number', () => {
    expect(parsePriceText('1.299,00', 'de')).toEqual({ value: 1299 })
  })
})

describe('currencyOf', () => {
  test('ISO codes are whole words from the ISO list only', () => {
    expect(currencyOf('EUR 12')).toBe('EUR')
    expect(currencyOf('RTX 4090')).toBeUndefined()
    expect(currencyOf('CARS 12')).toBeUndefined()
  })

  test('a bare R is the rand only in South Africa', () => {
    expect(currencyOf('R 299', 'za')).toBe('ZAR')
    expect(currencyOf('R 299', 'us')).toBeUndefined()
  })

  test('letter symbols must stand alone', () => {
    expect(currencyOf('Krafts 12')).toBeUndefined()
    expect(currencyOf('12 kr', 'dk')).toBe('DKK')
  })
})
