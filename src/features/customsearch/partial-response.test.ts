import { describe, expect, test } from 'vitest'
import { applyPartialFields, parsePartialFields } from './partial-response.ts'

const body = {
  kind: 'customsearch#search',
  searchInformation: { searchTime: 0.2, totalResults: '42' },
  items: [
    { title: 'A', link: 'https://a.example/', pagemap: { cse_thumbnail: [{ src: 's', width: '1' }] } },
    { title: 'B', link: 'https://b.example/' },
  ],
}
const pick = (fields: string) => applyPartialFields(body, parsePartialFields(fields))

describe('Google partial-response fields', () => {
  test('sub-selections, paths and lists', () => {
    expect(pick('items(title,link),searchInformation/totalResults')).toEqual({
      searchInformation: { totalResults: '42' },
      items: [
        { title: 'A', link: 'https://a.example/' },
        { title: 'B', link: 'https://b.example/' },
      ],
    })
    expect(pick('items/pagemap/cse_thumbnail(src)')).toEqual({ items: [{ pagemap: { cse_thumbnail: [{ src: 's' }] } }, {}] })
    expect(pick('kind')).toEqual({ kind: 'customsearch#search' })
  })

  test('wildcards and merged selections', () => {
    expect(pick('searchInformation/*')).toEqual({ searchInformation: body.searchInformation })
    expect(pick('items/title,items/link')).toEqual(pick('items(title,link)'))
    expect(pick('items(title),items')).toEqual({ items: body.items })
  })

  test('syntax errors name where they are', () => {
    expect(() => parsePartialFields('items(title')).toThrow(/fields: expected \) at position 12/)
    expect(() => parsePartialFields('items,,kind')).toThrow(/expected a field name at position 7/)
    expect(() => parsePartialFields('items)')).toThrow(/unexpected character at position 6/)
  })
})
