import { describe, expect, test } from 'vitest'
import { ApiError } from '../../../errors.ts'
import type { ChatMessage } from '../../../llm/chat-model.ts'
import { compileOutputSchema } from '../../../llm/json-schema.ts'
import type { ContextPassage } from '../context.schema.ts'
import { checkReport, readData, readPlan } from './research.model.ts'
import { type ContextFound, type ResearchEnv, runResearch } from './research.runner.ts'
import { emptyMeta, type ResearchRequest, type ResearchState } from './research.types.ts'

const passage = (url: string, text: string, start = 0): ContextPassage => ({
  text,
  url,
  title: url,
  position: 1,
  score: 1,
  tokens: 100,
  start,
  end: start + text.length,
  heading: null,
})

const REQUEST: ResearchRequest = { input: 'kettles', max_searches: 3, max_pages: 7, max_tokens: 3000, engine: 'google' }

/** An env whose model plans `queries` and reports from source 1, and whose searches each read `num` pages. */
function fakeEnv(queries: string[], overrides: Partial<ResearchEnv> = {}) {
  const searched: { query: string; num: number; maxTokens: number }[] = []
  const saved: number[] = []
  const env: ResearchEnv = {
    modelMc: 1000,
    checkOutput: null,
    now: () => 0,
    stop: () => null,
    chat: async (messages: readonly ChatMessage[]) => ({
      text: messages[0]!.content.includes('search queries') ? JSON.stringify({ queries }) : 'Kettles boil water [1].',
      usage: { prompt: 1, completion: 1 },
    }),
    context: async (query, num, maxTokens): Promise<ContextFound> => {
      searched.push({ query, num, maxTokens })
      return {
        passages: [passage('https://a.test/', `About ${query}.`, query.charCodeAt(0)), passage('https://shared.test/', 'Shared.')],
        pagesRead: num,
        tokensUsed: 200,
        usedMc: 1000 + num * 1000,
      }
    },
    save: async (_state, addMc) => {
      saved.push(addMc)
      return true
    },
    ...overrides,
  }
  return { env, searched, saved }
}

const fresh = (): ResearchState => ({ steps: [], sources: [], meta: emptyMeta(null) })

describe('runResearch', () => {
  test('pages and tokens are shared among the sub-queries from what is left; a passage found twice keeps its number', async () => {
    const { env, searched, saved } = fakeEnv(['a', 'b', 'c'])
    const state = fresh()
    const end = await runResearch(REQUEST, state, env)
    expect(end).toMatchObject({ kind: 'completed', reportMc: 1000, reportCalls: 1, result: { format: 'markdown', report: 'Kettles boil water [1].' } })
    expect(searched).toEqual([
      { query: 'a', num: 2, maxTokens: 1000 },
      { query: 'b', num: 2, maxTokens: 1400 },
      { query: 'c', num: 3, maxTokens: 2600 },
    ])
    expect(state.sources.map((s) => [s.n, s.url, s.query])).toEqual([
      [1, 'https://a.test/', 'a'],
      [2, 'https://shared.test/', 'a'],
      [3, 'https://a.test/', 'b'],
      [4, 'https://a.test/', 'c'],
    ])
    expect(state.steps.filter((s) => s.kind === 'search').map((s) => s.sources)).toEqual([
      [1, 2],
      [3, 2],
      [4, 2],
    ])
    // Saved as each step ended, with what it used: the plan, three searches, the report (billed at the end).
    expect(saved).toEqual([1000, 3000, 3000, 4000, 0])
  })

  test('a job interrupted mid-way resumes from its saved steps: nothing is asked, searched or paid for twice', async () => {
    let stopAfter = 2
    const first = fakeEnv(['a', 'b', 'c'], { stop: () => (stopAfter-- <= 0 ? 'interrupted' : null) })
    const state = fresh()
    expect(await runResearch(REQUEST, state, first.env)).toEqual({ kind: 'interrupted' })
    expect(first.searched.map((s) => s.query)).toEqual(['a'])
    const restored: ResearchState = JSON.parse(JSON.stringify(state))
    const second = fakeEnv(['x', 'y', 'z'])
    const end = await runResearch(REQUEST, restored, second.env)
    expect(end.kind).toBe('completed')
    // The saved plan is kept (the model is not asked again) and only b and c are searched.
    expect(second.searched.map((s) => s.query)).toEqual(['b', 'c'])
    expect([...first.saved, ...second.saved]).toEqual([1000, 3000, 3000, 4000, 0])
  })

  test('more sub-queries than max_pages or max_tokens can hold are not searched', async () => {
    const { env, searched } = fakeEnv(['a', 'b', 'c', 'd'])
    const state = fresh()
    await runResearch({ ...REQUEST, max_searches: 10, max_pages: 2, max_tokens: 1000 }, state, env)
    expect(searched.map((s) => [s.query, s.num])).toEqual([
      ['a', 1],
      ['b', 1],
    ])
    expect(state.steps[0]).toMatchObject({ kind: 'plan', queries: ['a', 'b'], note: 'only 2 sub-queries fit max_pages and max_tokens' })
  })

  test('a failed search is a step with its error, not billed; with no source at all the job fails', async () => {
    const { env, saved } = fakeEnv(['a'], {
      context: async () => {
        throw new ApiError('upstream_timeout', 'the engine did not answer')
      },
    })
    const state = fresh()
    expect(await runResearch(REQUEST, state, env)).toMatchObject({ kind: 'failed', error: { code: 'no_sources' } })
    expect(state.steps[1]).toMatchObject({ kind: 'search', credits_used: 0, error: { code: 'upstream_timeout' } })
    expect(saved).toEqual([1000, 0])
  })

  test('out of time for searches: the rest are skipped, the report is still written', async () => {
    let checks = 0
    const { env, searched } = fakeEnv(['a', 'b', 'c'], { stop: () => (++checks > 2 ? 'searches_timed_out' : null) })
    const state = fresh()
    expect((await runResearch(REQUEST, state, env)).kind).toBe('completed')
    expect(searched.map((s) => s.query)).toEqual(['a'])
    expect(state.steps.filter((s) => s.kind === 'search').map((s) => s.note)).toEqual([
      null,
      'not searched: the time for searches was spent',
      'not searched: the time for searches was spent',
    ])
  })

  test('output_schema: an invalid first output is retried once with its errors; both report calls billed when the second passes', async () => {
    const replies = ['{"data": {"n": "x"}}', '```json\n{"data": {"n": 2}, "basis": {"n": [1]}}\n```']
    const asked: (readonly ChatMessage[])[] = []
    const { env } = fakeEnv(['a'], {
      chat: async (messages) => {
        asked.push(messages)
        return { text: messages[0]!.content.includes('search queries') ? '{"queries": ["a"]}' : replies.shift()!, usage: { prompt: 1, completion: 1 } }
      },
      checkOutput: await compileOutputSchema({ type: 'object', properties: { n: { type: 'number' } } }),
    })
    const state = fresh()
    const end = await runResearch({ ...REQUEST, output_schema: { type: 'object' } }, state, env)
    expect(end).toMatchObject({ kind: 'completed', reportMc: 2000, reportCalls: 2, result: { format: 'json', data: { n: 2 }, basis: { n: [1] }, cited: [1] } })
    expect(asked.at(-1)!.at(-1)!.content).toContain('data/n must be number')
  })
})

describe('readPlan', () => {
  test('distinct non-empty queries of at most 200 characters, at most max; anything else falls back to the input', () => {
    expect(readPlan('{"queries": ["a", " A ", "", 5, "b", "c"]}', 'in', 2)).toEqual({
      queries: ['a', 'b'],
      note: '3 of the 6 queries proposed were empty, too long or repeated; 3 distinct queries proposed: the first 2 (max_searches) were kept',
    })
    expect(readPlan('not json', 'in', 3)).toEqual({ queries: ['in'], note: 'the model answered no {"queries": [...]} object: the input itself was searched' })
    expect(readPlan(JSON.stringify({ queries: ['x'.repeat(201)] }), 'in', 3).queries).toEqual(['in'])
    expect(readPlan(null, 'in', 3)).toEqual({ queries: ['in'], note: 'no plan: the input itself was searched' })
  })
})

describe('checkReport', () => {
  test('keeps Markdown blocks, drops uncited sentences and citations of missing sources, and headings left empty', () => {
    const reply = [
      'Kettles boil water fast [1]. They are loud.',
      '',
      '## Speed',
      '',
      '- Electric: three minutes [2][9].',
      '- Stovetop: slower.',
      '- Gas: five minutes [1].',
      '',
      '## Opinions [3]',
      '',
      'Everyone loves kettles.',
      '',
      '## Safety',
      '### Descaling',
      'Descale monthly [2].',
    ].join('\n')
    expect(checkReport(reply, 2)).toEqual({
      text: 'Kettles boil water fast [1].\n\n## Speed\n\n- Electric: three minutes [2].\n- Gas: five minutes [1].\n\n## Safety\n\n### Descaling\n\nDescale monthly [2].',
      cited: [1, 2],
      dropped: 3,
    })
    expect(checkReport('Nothing cited here.\n\n## Title', 3).text).toBeNull()
  })
})

describe('readData', () => {
  test('data must pass the schema; basis only for filled fields and sources that exist', async () => {
    const check = await compileOutputSchema({ type: 'object', properties: { a: { type: 'number' }, b: { type: ['string', 'null'] } }, required: ['a'] })
    expect(readData('{"data": {"b": "x"}}', check, 3)).toEqual({ ok: false, problems: "data must have required property 'a'" })
    expect(readData('[1]', check, 3)).toEqual({ ok: false, problems: 'the reply is not a JSON object' })
    expect(readData('{"a": 1}', check, 3)).toEqual({ ok: false, problems: 'the reply has no "data" object' })
    expect(readData('{"data": {"a": 1, "b": null}, "basis": {"a": [3, 4, 3, "1"], "b": [1], "c": [2]}}', check, 3)).toEqual({
      ok: true,
      data: { a: 1, b: null },
      basis: { a: [3] },
      cited: [3],
    })
  })
})
