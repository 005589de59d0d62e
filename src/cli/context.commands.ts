import { renderContextMarkdown } from '../features/context/context.markdown.ts'
import { ContextParams } from '../features/context/context.schema.ts'
import { callApi } from './client.ts'
import { type Command, UsageError } from './command.ts'
import { resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { print, printJson } from './output.ts'

/** `trawl context "question"`: POST /v1/context, the passages printed as Markdown (or the JSON answer). */

const contextFlags = schemaFlags(ContextParams, { skip: ['q'] })

export const contextCommands: Command[] = [
  {
    name: 'context',
    summary: 'Passages that answer a question (POST /v1/context): searches, reads the top results, ranks their passages',
    details:
      'Prints the passages as Markdown, best first, then the sources; --json prints the JSON answer. 1 credit plus 1 per page read. Example: trawl context "how fine to grind for espresso" --max-tokens 2000 --num 3',
    args: '<query...>',
    flags: contextFlags,
    globals: 'client',
    async run({ values, positionals }) {
      const conn = resolveConnection(values)
      if (!positionals.length) throw new UsageError('missing <query...>')
      const { body } = await callApi(conn, 'POST', '/v1/context', { ...paramsFrom(contextFlags, values), q: positionals.join(' ') })
      if (values.json) printJson(body)
      else print(renderContextMarkdown(body))
      return 0
    },
  },
]
