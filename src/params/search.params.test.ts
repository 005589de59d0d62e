import { describe, expect, it } from 'vitest'
import { country, countryFromLocation, countryNames } from './search.params.ts'

describe('a location ending in a country name sets that country', () => {
  it('knows a couple of hundred countries and territories', () => {
    expect(countryNames().size).toBeGreaterThan(240)
  })

  it.each([...countryNames()])('"Somewhere, %s" sets %s', (name, code) => {
    expect(countryFromLocation(`Somewhere, ${name}`)).toBe(code)
    expect(countryFromLocation(`Somewhere,${name.toUpperCase()}`)).toBe(code)
    // The code is one the country parameter accepts, and the country's own current code.
    expect(country.parse(code)).toBe(code)
    expect(Intl.getCanonicalLocales(`und-${code}`)).toEqual([`und-${code.toUpperCase()}`])
  })

  it('picks the current code, never a withdrawn one CLDR names the same (fx, uk, dd, yu, zr, tp, bu)', () => {
    expect(countryFromLocation('Paris, France')).toBe('fr')
    expect(countryFromLocation('London, United Kingdom')).toBe('gb')
    expect(countryFromLocation('Berlin, Germany')).toBe('de')
    expect(countryFromLocation('Belgrade, Serbia')).toBe('rs')
    expect(countryFromLocation('Kinshasa, Congo - Kinshasa')).toBe('cd')
    expect(countryFromLocation('Dili, Timor-Leste')).toBe('tl')
    expect(countryFromLocation('Yangon, Myanmar (Burma)')).toBe('mm')
    expect(new Set(countryNames().values())).not.toContain('fx')
  })

  it('reads everyday spellings, but never lets them replace a country name', () => {
    expect(countryFromLocation('Austin,Texas,United States')).toBe('us')
    expect(countryFromLocation('Austin, TX, USA')).toBe('us')
    expect(countryFromLocation("Abidjan, Cote d'Ivoire")).toBe('ci')
    expect(countryFromLocation('Castries, Saint Lucia')).toBe('lc')
    expect(countryFromLocation('Sarajevo, Bosnia and Herzegovina')).toBe('ba')
    expect(countryFromLocation('Istanbul, Turkey')).toBe('tr')
    expect(countryFromLocation('Tbilisi, Georgia')).toBe('ge')
  })

  it('sets nothing when the last part is not a country', () => {
    expect(countryFromLocation('Austin, Texas')).toBeUndefined()
    expect(countryFromLocation('Brussels, European Union')).toBeUndefined()
    expect(countryFromLocation('Nowhere, Unknown Region')).toBeUndefined()
  })
})
