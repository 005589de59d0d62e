import { describe, expect, test } from 'vitest'
import { nestUnder, titled } from './markdown-outline.ts'

describe('titled: the page title as `# Title` over its Markdown', () => {
  test('prepended when the content does not open with it', () => {
    expect(titled('Pull a shot at 9 bars.\n\n## Grind', 'Espresso guide')).toBe('# Espresso guide\n\nPull a shot at 9 bars.\n\n## Grind')
    // An opening heading of another level, or another text, is content: the title still goes first.
    expect(titled('## Espresso guide\n\nText', 'Espresso guide')).toBe('# Espresso guide\n\n## Espresso guide\n\nText')
    expect(titled('# Menu\n\nText', 'Espresso guide')).toBe('# Espresso guide\n\n# Menu\n\nText')
  })

  test('kept once when the content already opens with it (case and punctuation aside)', () => {
    expect(titled('\n# Espresso Guide!\n\nText', 'espresso guide')).toBe('\n# Espresso Guide!\n\nText')
  })

  test('nothing to add: no title, or no content', () => {
    expect(titled('Text', null)).toBe('Text')
    expect(titled('Text', '  ')).toBe('Text')
    expect(titled('', 'Title')).toBe('')
  })

  test('the title is escaped where it would read as Markdown', () => {
    expect(titled('x', 'A *bold* [claim] about `code` #')).toBe('# A \\*bold\\* \\[claim\\] about \\`code\\` \\#\n\nx')
    expect(titled('x', 'C# in\n  a   week')).toBe('# C# in a week\n\nx')
  })
})

describe('nestUnder: a page under a section heading', () => {
  test('the title heading the section repeats is dropped; the rest move below the section', () => {
    expect(nestUnder('# Espresso guide\n\nIntro\n\n## Grind\n\n### Fine\n\nText', 2, 'Espresso guide')).toBe('Intro\n\n### Grind\n\n#### Fine\n\nText')
  })

  test('without a title (or another one) every heading moves, the highest to the level below', () => {
    expect(nestUnder('# Title\n\n## Part', 2)).toBe('### Title\n\n#### Part')
    expect(nestUnder('## Part\n\n### Sub', 2, 'Something else')).toBe('### Part\n\n#### Sub')
    // Already below the section: unchanged.
    expect(nestUnder('### Part\n\nText', 2)).toBe('### Part\n\nText')
  })

  test('levels stop at 6; fenced code and non-headings are left alone', () => {
    expect(nestUnder('# A\n\n###### Deep', 2)).toBe('### A\n\n###### Deep')
    const code = '## Run\n\n```sh\n# a comment, not a heading\n```\n\n#hashtag\n\n\\# escaped'
    expect(nestUnder(code, 2)).toBe('### Run\n\n```sh\n# a comment, not a heading\n```\n\n#hashtag\n\n\\# escaped')
  })

  test('no headings: the text as it is', () => {
    expect(nestUnder('Just text.', 2, 'Title')).toBe('Just text.')
  })
})
