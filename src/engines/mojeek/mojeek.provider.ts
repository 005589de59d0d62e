import { mojeekAltchaGate } from '../gates/altcha.gate.ts'
import type { Provider } from '../provider.types.ts'
import { detectMojeekBlock } from './mojeek.block.ts'
import { parseMojeekSearch } from './mojeek.parse.ts'
import { buildMojeekSearchRequest } from './mojeek.request.ts'

/** Mojeek: web search from its own index. Its query language has `site:`. */
export const mojeekProvider: Provider<'mojeek'> = {
  name: 'mojeek',
  capabilities: {
    verticals: ['search'],
    params: ['page', 'time', 'safe', 'include_domains'],
    siteOperator: true,
  },
  search: {
    request: (req) => buildMojeekSearchRequest(req),
    read: (body) => parseMojeekSearch(body),
  },
  verticals: {},
  detectBlock: (r) => detectMojeekBlock(r),
  // Mojeek answers every client without its pass with an Altcha challenge page (searxng/searxng PR #6696).
  gate: mojeekAltchaGate,
}
