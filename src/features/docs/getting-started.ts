import { readFileSync } from 'node:fs'
import { srcFile } from '../../paths.ts'

let text: string | undefined

/**
 * The getting-started guide (getting-started.md): the document's `info.description`, which the
 * reference at /docs shows first, headings in its sidebar. `{{base_url}}` becomes this server's URL.
 */
export function gettingStarted(baseUrl: string): string {
  text ??= readFileSync(srcFile('features/docs/getting-started.md'), 'utf8')
  return text.replaceAll('{{base_url}}', baseUrl)
}
