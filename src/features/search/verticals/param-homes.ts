import { SearchParams } from '../search.schema.ts'
import { VERTICAL_SPECS } from './vertical.specs.ts'

/** Endpoint path -> its parameter names, read off the schemas themselves so they cannot drift. */
const PARAMS_BY_PATH: [string, Set<string>][] = [
  ['/v1/search', new Set(Object.keys(SearchParams.shape))],
  ...Object.values(VERTICAL_SPECS).map((spec): [string, Set<string>] => [`/v1/${spec.name}`, new Set(Object.keys(spec.schema.shape))]),
]

/**
 * For a parameter `path` does not take but other search endpoints do, a message naming where it
 * applies (for example "include_content is only supported on /v1/search"). Undefined for a
 * name no endpoint knows, which gets the generic unknown-parameter message.
 */
export function explainParamElsewhere(path: string): (name: string) => string | undefined {
  return (name) => {
    const homes = PARAMS_BY_PATH.filter(([p, names]) => p !== path && names.has(name)).map(([p]) => p)
    if (homes.length === 0) return undefined
    return homes.length <= 3
      ? `${name} is only supported on ${homes.join(', ')}`
      : `unknown parameter ${name}: ${path} does not take it (it applies to ${homes.join(', ')})`
  }
}
