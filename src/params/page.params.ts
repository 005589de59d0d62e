import { z } from 'zod'

/** Page-reading options that webpage, extract and crawl requests share. */

/** Per page, 100 to 100,000 o200k tokens: the same bound for webpage, extract and crawl. */
export const maxTokens = z
  .number({ error: 'max_tokens must be an integer between 100 and 100,000' })
  .int('max_tokens must be an integer between 100 and 100,000')
  .min(100, 'max_tokens must be between 100 and 100,000')
  .max(100_000, 'max_tokens must be between 100 and 100,000')

/** When to draw a page in the headless browser (docs/rendering.md). */
export const renderMode = z
  .enum(['auto', 'always', 'never'], { error: 'render must be auto, always or never' })
  .describe('draw the page in a headless browser: auto (default: only when the static page looks like a JavaScript shell), always, never; same price')
