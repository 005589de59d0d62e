import { z } from 'zod'
import { describeEngines } from '../../engines/registry.ts'
import * as p from '../../params/search.params.ts'
import { SearchParams } from '../search/search.schema.ts'
import { explainParamElsewhere } from '../search/verticals/param-homes.ts'

const search = SearchParams.shape
const KEYED = 'with an API key on /v1/search'

/**
 * GET /playground/search query and POST body: a subset of /v1/search's parameters, with the same
 * validation and messages. What costs more than one upstream page (num 20 to 100, include_content,
 * engine lists and consensus) and the expert options are refused with a 400 naming the parameter.
 */
export const PlaygroundParams = z.strictObject({
  q: search.q.describe('the query'),
  country: search.country.describe('two-letter ISO code; default us'),
  language: search.language.describe('language code, optional region (en, pt-BR); default en'),
  location: search.location.describe('canonical location text, e.g. Austin,Texas,United States'),
  // Only 10, so the document lists only 10; a value /v1/search takes is told where it is available.
  num: z
    .literal(10, {
      error: (issue) =>
        p.num.safeParse(issue.input).success
          ? `num: the playground returns 10 results a page; num 20 to 100 is available ${KEYED}`
          : 'num must be one of 10, 20, 30, 50, 100',
    })
    .optional()
    .describe('10 (the default and the only value here)'),
  page: search.page.describe('1 to 10'),
  time: search.time.describe('hour, day, week, month or year'),
  safe: search.safe.describe('off (default) or active'),
  device: search.device.describe('desktop (default) or mobile results'),
  format: search.format.describe('json (default), compact or markdown'),
  engine: z
    .string({ error: `engine: the playground asks one provider or auto; lists are available ${KEYED}` })
    .min(1, 'engine must name a provider or auto')
    .refine((e) => !e.includes(','), `engine: the playground asks one provider or auto; lists are available ${KEYED}`)
    .refine((e) => e.trim().toLowerCase() !== 'consensus', `engine: consensus is available ${KEYED}`)
    .optional()
    .describe(`one provider (${describeEngines({ primary: 'by default', last: ',' })}) or auto`),
})

export type PlaygroundParams = z.infer<typeof PlaygroundParams>

const elsewhere = explainParamElsewhere('/playground/search')

/** The 400 message for a parameter the playground does not take. */
export function refusedParameter(name: string): string | undefined {
  if (name === 'api_key') return `api_key: the playground takes no API key and bills nothing; send keyed searches to /v1/search`
  if (Object.hasOwn(search, name)) return `${name} is not available on the keyless playground; it is available ${KEYED}`
  return elsewhere(name)
}
