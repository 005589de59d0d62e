import type { EngineParam } from './provider.types.ts'

const DEFAULTS: Partial<Record<EngineParam, unknown>> = { safe: 'off', device: 'desktop' }
const PARAMS: EngineParam[] = ['location', 'uule', 'll', 'time', 'tbs', 'safe', 'device', 'autocorrect', 'ads', 'include_domains']

/** The optional engine parameters a normalised request sets to something other than their default. */
export function sentParams(req: object): EngineParam[] {
  const r = req as Record<string, unknown>
  const sent = PARAMS.filter((p) => r[p] !== undefined && r[p] !== DEFAULTS[p] && !(p === 'ads' && r[p] === false))
  if (r.exclude_domains !== undefined && !sent.includes('include_domains')) sent.push('include_domains')
  if ((typeof r.page === 'number' && r.page > 1) || (typeof r.offset === 'number' && r.offset > 0)) sent.unshift('page')
  return sent
}
