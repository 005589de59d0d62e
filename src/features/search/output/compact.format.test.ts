import { describe, expect, test } from 'vitest'
import { compactBody } from './compact.format.ts'
import { autocompleteBody, imagesBody, mapsBody, newsBody, reviewsBody, searchBody, shoppingBody } from './sample-bodies.fixture.ts'

describe('compactBody', () => {
  test('search: same top-level keys, trimmed items and feature blocks, request and meta whole', () => {
    const body = searchBody()
    const out = compactBody('search', body)
    expect(Object.keys(out)).toEqual(Object.keys(body))
    expect(out.request).toEqual(body.request)
    expect(out.meta).toEqual(body.meta)
    expect(out).toEqual({
      request: body.request,
      results: [
        {
          position: 1,
          title: 'The 6 Best Espresso Machines of 2024 | Tested & Reviewed',
          link: 'https://www.seriouseats.com/best-espresso-machines-7100546',
          snippet: 'We tested 14 espresso machines; the *Breville Bambino Plus* is our top pick.',
        },
        {
          position: 2,
          title: 'Espresso machine - Wikipedia',
          link: 'https://en.wikipedia.org/wiki/Espresso_machine_(coffee)',
          snippet: 'An espresso machine brews coffee by forcing pressurized water near boiling point through a "puck".',
        },
        // snippet: null is dropped, not sent as null
        { position: 3, title: '# 1 Rated <Espresso> Deals', link: 'https://deals.example.com/espresso?ref=a|b' },
      ],
      people_also_ask: [
        {
          question: 'Is a $200 espresso machine worth it?',
          snippet: 'For most home baristas, yes, if it holds temperature.',
        },
        { question: 'What is the 1 2 3 rule for espresso?' },
      ],
      related_searches: [{ query: 'espresso machine with grinder' }, { query: 'best espresso machine under $500' }],
      knowledge_graph: {
        title: 'Espresso machine',
        description: 'An espresso machine brews coffee by forcing pressurized water through ground coffee.',
      },
      answer_box: { answer: '9 bars of pressure' },
      top_stories: [
        {
          title: 'Breville recalls 2,000 espresso machines',
          link: 'https://www.theverge.com/2024/3/1/breville-recall',
          source: 'The Verge',
          date: '2 hours ago',
        },
      ],
      places: [{ title: 'Espresso Parts', address: '2900 Mottman Rd SW, Olympia, WA', rating: 4.7 }],
      ads: [{ title: 'Espresso Machines on Sale', link: 'https://www.williams-sonoma.com/espresso' }],
      meta: body.meta,
    })
  })

  test('answer box falls back to the snippet when there is no answer', () => {
    const body = searchBody()
    body.answer_box = { type: 'featured_snippet', answer: '', snippet: 'Most machines brew at 9 bars.', link: 'https://x.org' }
    expect(compactBody('search', body).answer_box).toEqual({ snippet: 'Most machines brew at 9 bars.' })
  })

  test('keeps top-level keys even when they end up empty', () => {
    const body = searchBody()
    body.results = []
    body.knowledge_graph = { type: 'Thing', attributes: {} }
    const out = compactBody('search', body)
    expect(out.results).toEqual([])
    expect(out.knowledge_graph).toEqual({})
  })

  test('news keeps source and date; null and empty values are dropped', () => {
    expect(compactBody('news', newsBody()).results).toEqual([
      {
        position: 11,
        title: 'Fed holds rates steady, signals 3 cuts in 2024',
        link: 'https://www.reuters.com/markets/us/fed-holds-2024-03-20/',
        source: 'Reuters',
        date: '3 hours ago',
        snippet: 'The Federal Reserve held its policy rate in the 5.25%-5.50% range.',
      },
      {
        position: 12,
        title: 'What the Fed decision means for mortgages',
        link: 'https://www.cnbc.com/2024/03/20/fed-mortgages.html',
        date: '1 day ago',
      },
    ])
  })

  test('images keep title, image_url and link', () => {
    expect(compactBody('images', imagesBody()).results).toEqual([
      {
        position: 1,
        title: 'Golden Retriever [Dog Breed]',
        image_url: 'https://upload.wikimedia.org/golden_retriever.jpg',
        link: 'https://en.wikipedia.org/wiki/Golden_Retriever',
      },
      {
        position: 2,
        title: 'Puppy in snow',
        image_url: 'https://images.example.com/puppy.jpg',
        link: 'https://images.example.com/puppy',
      },
    ])
  })

  test('maps keep contact details and the place id /v1/reviews needs', () => {
    expect(compactBody('maps', mapsBody()).results).toEqual([
      {
        position: 1,
        title: 'Houndstooth Coffee',
        address: '401 Congress Ave #100c, Austin, TX 78701',
        rating: 4.6,
        rating_count: 1287,
        phone_number: '(512) 555-0199',
        website: 'https://www.houndstoothcoffee.com/',
        place_id: 'ChIJd8BlQ2BZwokRAFUEcm_qrcA',
      },
      { position: 2, title: 'Mystery Café' },
    ])
  })

  test('shopping keeps the displayed price and source', () => {
    expect(compactBody('shopping', shoppingBody()).results).toEqual([
      {
        position: 1,
        title: 'AeroPress Original | Coffee Maker',
        price: '$39.95',
        source: 'Amazon.com',
        link: 'https://www.amazon.com/dp/B0047BIWSK',
        rating: 4.8,
      },
      { position: 2, title: 'AeroPress Go Travel', source: 'Target', link: 'https://www.target.com/p/aeropress-go' },
    ])
  })

  test('reviews keep rating, date, text and the reviewer name; next_page_token stays', () => {
    const body = reviewsBody()
    const out = compactBody('reviews', body)
    expect(Object.keys(out)).toEqual(['request', 'results', 'next_page_token', 'meta'])
    expect(out.next_page_token).toBe('CAESY0NBRVFDaG9')
    expect(out.results).toEqual([
      {
        rating: 5,
        date: '2 weeks ago',
        snippet: 'Best cortado in town.\nStaff knows their *beans*.',
        user: { name: 'Dana K.' },
      },
      { rating: 2, date: 'a month ago', snippet: '- too loud, > 20 min wait', user: { name: 'Sam' } },
    ])
  })

  test('autocomplete keeps the suggestions as they are', () => {
    const body = autocompleteBody()
    expect(compactBody('autocomplete', body)).toEqual(body)
  })

  test('a top-level key without a rule passes through, pruned', () => {
    const body = { ...newsBody(), total_results: 1230, debug: { note: null, kept: 'x' } }
    const out = compactBody('news', body)
    expect(out.total_results).toBe(1230)
    expect(out.debug).toEqual({ kept: 'x' })
  })

  test('does not change the body it was given', () => {
    const body = searchBody()
    const before = structuredClone(body)
    compactBody('search', body)
    expect(body).toEqual(before)
  })
})
