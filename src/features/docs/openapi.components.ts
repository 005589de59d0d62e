import { z } from 'zod'
import { SearchMeta } from '../../billing/search-meta.ts'
import * as results from '../../engines/results.schema.ts'
import { ErrorEnvelope } from '../../http/error-schema.ts'
import { Highlight, PageMetadata, PageResult, ReadLink } from '../../reader/page.schema.ts'
import { AccountResponse } from '../accounts/account.response.ts'
import { BatchCreated, BatchJob } from '../batches/batches.response.ts'
import { FIRECRAWL_COMPONENTS } from '../compat/firecrawl/firecrawl.response.ts'
import { SEARXNG_COMPONENTS } from '../compat/searxng/searxng.response.ts'
import { SERPER_COMPONENTS } from '../compat/serper/serper.response.ts'
import { TAVILY_COMPONENTS } from '../compat/tavily/tavily.response.ts'
import { ContextMeta, ContextPassage, ContextResponse, ContextSource } from '../context/context.schema.ts'
import { ResearchMeta, ResearchResult, ResearchSource, ResearchStep, ResearchTask } from '../context/research/research.response.ts'
import { CrawlTask } from '../crawl/crawl.response.ts'
import { CseResponse } from '../customsearch/cse.response.ts'
import { EngineStatus, EnginesResponse } from '../engines/engines.response.ts'
import { MapResponse } from '../map/map.response.ts'
import { MonitorDeleted, MonitorList, MonitorResponse, MonitorRun, MonitorRuns } from '../monitors/monitors.response.ts'
import { RankResponse } from '../rank/rank.schema.ts'
import { ExtractResponse, WebpageResponse } from '../reading/reading.response.ts'
import { SearchResponse } from '../search/search.response.ts'
import { verticalResponse } from '../search/verticals/vertical.response.ts'
import type { VerticalName } from '../search/verticals/vertical.specs.ts'

type Meta = z.core.GlobalMeta

/**
 * A map that answers from the global registry what it does not hold itself. `.describe()` writes to
 * zod's global registry; a separate registry of our own keeps the component ids out of every other
 * `z.toJSONSchema` call in the process, but must still find the descriptions.
 */
class WithGlobalMeta extends WeakMap<z.core.$ZodType, Meta> {
  override get(schema: z.core.$ZodType) {
    return super.get(schema) ?? z.globalRegistry._map.get(schema)
  }
  override has(schema: z.core.$ZodType) {
    return super.has(schema) || z.globalRegistry._map.has(schema)
  }
}

/** Vertical items are named after one result (`NewsResult`), their responses after the endpoint (`NewsResponse`). */
const VERTICAL_ITEM_NAMES: Record<VerticalName, string> = {
  news: 'NewsResult',
  images: 'ImageResult',
  videos: 'VideoResult',
  maps: 'MapsResult',
  places: 'PlacesResult',
  shopping: 'ShoppingResult',
  scholar: 'ScholarResult',
  patents: 'PatentResult',
  autocomplete: 'Suggestion',
  lens: 'LensResult',
  reviews: 'Review',
}

const pascal = (name: string) => name[0]!.toUpperCase() + name.slice(1)

/**
 * The named schemas of the OpenAPI document (`#/components/schemas/<name>`): every shared response
 * shape, so generated clients get named types. A name is the zod schema's own name where it has one.
 * Request schemas stay inline: each belongs to one operation.
 */
export function componentRegistry(): z.core.$ZodRegistry<Meta> {
  const registry = z.registry<Meta>()
  registry._map = new WithGlobalMeta()
  const named: Record<string, z.core.$ZodType> = {
    ErrorEnvelope,
    SearchResponse,
    SearchMeta,
    ParseQuality: results.ParseQuality,
    OrganicResult: results.OrganicResult,
    Sitelink: results.Sitelink,
    PeopleAlsoAsk: results.PeopleAlsoAsk,
    RelatedSearch: results.RelatedSearch,
    KnowledgeGraph: results.KnowledgeGraph,
    AnswerBox: results.AnswerBox,
    TopStory: results.TopStory,
    LocalPlace: results.LocalPlace,
    Ad: results.Ad,
    RankResponse,
    ContextResponse,
    ContextPassage,
    ContextSource,
    ContextMeta,
    ResearchTask,
    ResearchStep,
    ResearchSource,
    ResearchResult,
    ResearchMeta,
    CseResponse,
    ExtractResponse,
    WebpageResponse,
    PageResult,
    PageMetadata,
    ReadLink,
    Highlight,
    MapResponse,
    CrawlTask,
    BatchJob,
    BatchCreated,
    Monitor: MonitorResponse,
    MonitorList,
    MonitorDeleted,
    MonitorRun,
    MonitorRuns,
    AccountResponse,
    EnginesResponse,
    EngineStatus,
    ...TAVILY_COMPONENTS,
    ...SEARXNG_COMPONENTS,
    ...FIRECRAWL_COMPONENTS,
    ...SERPER_COMPONENTS,
  }
  for (const [vertical, itemName] of Object.entries(VERTICAL_ITEM_NAMES) as [VerticalName, string][]) {
    named[itemName] = results.VERTICAL_ITEMS[vertical]
    named[`${pascal(vertical)}Response`] = verticalResponse(vertical)
  }
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { ...z.globalRegistry.get(schema), id })
  return registry
}
