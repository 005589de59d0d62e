/**
 * Test data: SearXNG's JSON answer as `searx/webutils.py` get_json_response writes it (results as
 * MainResult.as_dict(), answers as objects since 2025, infoboxes, suggestions,
 * unresponsive_engines as [engine, reason] pairs). Constructed to that shape; values invented.
 * Used by the unit tests and by test/byo-upstreams.test.ts.
 */
export function searxngAnswer(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    query: 'espresso',
    number_of_results: 1230000,
    results: [
      {
        url: 'https://en.wikipedia.org/wiki/Espresso',
        title: 'Espresso - Wikipedia',
        content: 'Espresso is a concentrated form of coffee produced by forcing hot water under high pressure.',
        engine: 'google',
        engines: ['google', 'bing', 'duckduckgo'],
        positions: [1, 2, 1],
        score: 9.5,
        category: 'general',
        template: 'default.html',
        parsed_url: ['https', 'en.wikipedia.org', '/wiki/Espresso', '', '', ''],
        publishedDate: null,
        thumbnail: '',
        priority: '',
      },
      {
        url: 'https://www.example.com/guide',
        title: 'How to pull a shot',
        content: 'A step by step <b>guide</b> &amp; tips.',
        engine: 'bing',
        engines: ['bing'],
        positions: [3],
        score: 0.33,
        category: 'general',
        template: 'default.html',
        parsed_url: ['https', 'www.example.com', '/guide', '', '', ''],
        publishedDate: '2025-03-02T00:00:00',
        priority: '',
      },
      { url: 'javascript:void(0)', title: 'not a page', content: '', engine: 'x', engines: ['x'], category: 'general' },
      { url: 'https://untitled.example.org/page', title: '', content: 'no title', engine: 'mojeek', engines: ['mojeek'], category: 'general' },
    ],
    answers: [
      { answer: 'Espresso: 63 mg of caffeine per shot', url: 'https://www.example.com/caffeine', template: 'answer/legacy.html', engine: 'duckduckgo' },
    ],
    corrections: [],
    infoboxes: [
      {
        infobox: 'Espresso',
        id: 'https://en.wikipedia.org/wiki/Espresso',
        content: 'Coffee brewing method',
        img_src: 'https://upload.wikimedia.org/espresso.jpg',
        urls: [
          { title: 'Wikipedia', url: 'https://en.wikipedia.org/wiki/Espresso' },
          { title: 'Official website', url: 'https://espresso.example/' },
        ],
        attributes: [
          { label: 'Origin', value: 'Italy' },
          { label: 'Image', value: { src: 'x' } },
        ],
        engine: 'wikipedia',
        engines: ['wikipedia', 'wikidata'],
      },
    ],
    suggestions: ['espresso machine', 'espresso martini', 'espresso machine'],
    unresponsive_engines: [['brave', 'timeout']],
    ...over,
  }
}
