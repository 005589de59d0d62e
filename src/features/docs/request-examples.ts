/**
 * One example request per operation, by operationId: the values shown in the reference's request
 * form and code samples. GET twins (`searchGet`) use their POST operation's example. Path
 * parameters are `path`; everything else is the query string (GET) or the JSON body.
 */
export interface RequestExample {
  path?: Record<string, string>
  params?: Record<string, unknown>
}

const SAMPLE_ID = '0b6f3c52-8d1e-4f7a-9c0d-2e5b7a1f4c83'
const byId = { path: { id: SAMPLE_ID } }

export const REQUEST_EXAMPLES: Record<string, RequestExample> = {
  search: { params: { q: 'best espresso grinder', country: 'us', num: 10 } },
  playgroundSearch: { params: { q: 'best espresso grinder' } },
  news: { params: { q: 'AI regulation', time: 'week' } },
  images: { params: { q: 'golden gate bridge at night' } },
  videos: { params: { q: 'sourdough starter' } },
  maps: { params: { q: 'coffee', location: 'Austin,Texas,United States' } },
  places: { params: { q: 'coffee near Zilker Park' } },
  shopping: { params: { q: 'espresso machine' } },
  scholar: { params: { q: 'coral bleaching' } },
  patents: { params: { q: 'solar panel cleaning robot' } },
  autocomplete: { params: { q: 'how to make' } },
  lens: { params: { url: 'https://example.com/photo.jpg' } },
  reviews: { params: { place_id: 'ChIJN1t_tDeuEmsRUsoyG83frY4', sort: 'newest' } },
  rank: { params: { q: 'espresso grinder', domain: 'example.com' } },
  context: { params: { q: 'how fine to grind coffee for espresso', max_tokens: 4000, num: 5 } },
  startResearch: { params: { input: 'How do burr and blade coffee grinders compare for espresso?', max_searches: 3, max_pages: 10, max_tokens: 8000 } },
  getResearch: byId,
  researchEvents: byId,
  cancelResearch: byId,
  customSearch: { params: { q: 'espresso grinder', num: 10 } },
  extract: { params: { urls: ['https://example.com/', 'https://example.org/'], format: 'markdown' } },
  webpage: { params: { url: 'https://example.com/', format: 'markdown' } },
  map: { params: { url: 'https://example.com/', limit: 100 } },
  startCrawl: { params: { url: 'https://example.com/', limit: 25, max_depth: 2 } },
  getCrawl: byId,
  cancelCrawl: byId,
  createBatch: { params: { endpoint: 'search', requests: [{ q: 'espresso grinder' }, { q: 'pour over kettle' }] } },
  getBatch: byId,
  createMonitor: { params: { q: 'trawl search api', interval: 'daily' } },
  getMonitor: byId,
  updateMonitor: { path: { id: SAMPLE_ID }, params: { interval: 'weekly' } },
  deleteMonitor: byId,
  runMonitor: byId,
  listMonitorRuns: { path: { id: SAMPLE_ID }, params: { limit: 20 } },
}

/** The example of an operation: its own, or its POST twin's for a GET (`newsGet` → `news`). */
export function exampleFor(operationId: string): RequestExample {
  return REQUEST_EXAMPLES[operationId] ?? REQUEST_EXAMPLES[operationId.replace(/Get$/, '')] ?? {}
}
