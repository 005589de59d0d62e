import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { detectAutocompleteBlock } from './google-autocomplete.block.ts'
import { parseGoogleAutocomplete } from './google-autocomplete.parse.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/autocomplete/', import.meta.url)
const constructed = (name: string) => readFileSync(new URL(name, CONSTRUCTED), 'utf8')
const values = (body: string) => parseGoogleAutocomplete(body).results.map((r) => r.value)

const CAFE = [
  'café de flore',
  'café joyeux',
  'café racer',
  'café au lait',
  'café gourmand',
  'café crème',
  'café de la paix',
  'café pouchkine',
  'cafés richard',
  'café liégeois',
]

describe('client=firefox answers (constructed fixtures)', () => {
  it('reads the 10 suggestions in order, accents intact', () => {
    const page = parseGoogleAutocomplete(constructed('autocomplete-firefox-cafe-fr.constructed.json'))
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(10)
    expect(page.results[0]).toEqual({ value: 'café de flore' })
    expect(page.results.map((r) => r.value)).toEqual(CAFE)
  })

  it('reads an answer without suggestions as empty', () => {
    expect(parseGoogleAutocomplete(constructed('autocomplete-firefox-empty.constructed.json'))).toEqual({
      results: [],
      parse_quality: 'empty',
      saysNoResults: true,
    })
  })

  it('is not taken for a block page', () => {
    const body = constructed('autocomplete-firefox-cafe-fr.constructed.json')
    expect(detectAutocompleteBlock({ status: 200, url: 'https://www.google.com/complete/search?client=firefox&q=caf%C3%A9', body })).toBeNull()
  })
})

describe('other answer shapes', () => {
  it("strips the )]}' prefix, on its own line or glued on", () => {
    expect(values(`)]}'\n["a",["a1","a2"]]`)).toEqual(['a1', 'a2'])
    expect(values(`)]}'["a",["a1","a2"]]`)).toEqual(['a1', 'a2'])
  })

  it('reads client=chrome and drops its navigational entries', () => {
    const chrome = JSON.stringify([
      'git',
      ['github', 'https://github.com/', 'gitlab', 'git commands'],
      ['', 'GitHub', '', ''],
      [],
      { 'google:suggesttype': ['QUERY', 'NAVIGATION', 'QUERY', 'QUERY'], 'google:suggestrelevance': [1250, 1200, 1100, 600] },
    ])
    expect(values(chrome)).toEqual(['github', 'gitlab', 'git commands'])
  })

  it('reads the JavaScript-wrapped gws-wiz answer with HTML suggestions', () => {
    const wiz =
      'window.google.ac.h([[["s\\u003cb\\u003eushi near me\\u003c/b\\u003e",0,[512]],["s\\u003cb\\u003e\\u0026amp;p 500\\u003c/b\\u003e",0,[512,433]]],{"q":"x","t":{"bpc":false}}])'
    expect(values(wiz)).toEqual(['sushi near me', 's&p 500'])
  })

  it('reads the toolbar XML', () => {
    const xml =
      '<?xml version="1.0"?><toplevel><CompleteSuggestion><suggestion data="tom &amp; jerry"/></CompleteSuggestion><CompleteSuggestion><suggestion data="tomate"/></CompleteSuggestion></toplevel>'
    expect(values(xml)).toEqual(['tom & jerry', 'tomate'])
  })

  it('drops blanks and duplicates and never throws on garbage', () => {
    expect(values('["q",["a"," a ","","b"]]')).toEqual(['a', 'b'])
    expect(parseGoogleAutocomplete('')).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseGoogleAutocomplete('["q",')).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseGoogleAutocomplete('{"foo":1}')).toEqual({ results: [], parse_quality: 'empty' })
  })
})

describe('block detection', () => {
  const url = 'https://www.google.com/complete/search?client=firefox&q=x'

  it('refuses an HTML page, a /sorry/ redirect and a 429', () => {
    const sorry =
      '<html><head><title>https://www.google.com/complete/search</title></head><body><form id="captcha-form" action="index" method="post"></form></body></html>'
    expect(detectAutocompleteBlock({ status: 200, url, body: sorry })).not.toBeNull()
    expect(detectAutocompleteBlock({ status: 200, url, body: '<!doctype html><html><body>Before you continue</body></html>' })?.reason).toMatch(/HTML page/)
    expect(detectAutocompleteBlock({ status: 302, url: 'https://www.google.com/sorry/index?continue=x', body: '' })).not.toBeNull()
    expect(detectAutocompleteBlock({ status: 429, url, body: '' })).not.toBeNull()
  })

  it('does not read the web heuristics into suggestions', () => {
    const body = '["how to",["how to update your browser","how to enable javascript to continue"],[],{}]'
    expect(detectAutocompleteBlock({ status: 200, url, body })).toBeNull()
    expect(values(body)).toEqual(['how to update your browser', 'how to enable javascript to continue'])
  })
})
