import { readFileSync } from 'node:fs'

let text: string | undefined

/**
 * The getting-started guide (getting-started.md): the document's `info.description`, which the
 * reference at /docs shows first, headings in its sidebar. `{{base_url}}` becomes this server's URL.
 */
export function gettingStarted(baseUrl: string): string {
  text ??= readFileSync(new URL('./getting-started.md', import.meta.url), 'utf8')
  return text.replaceAll('{{base_url}}', baseUrl)
}
