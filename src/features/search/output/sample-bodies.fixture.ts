/**
 * Response bodies as the verticals produce them, for the output tests. Values are modelled on real result pages
 * (relative dates, displayed prices, third-party titles with Markdown-significant characters) rather than tidy ones.
 */
import type { JsonObject } from './output.types.ts'

/** Plain JSON, as the output layer takes it: looser than a service's body (some hold nulls a parser would leave out). */
type Body = { request: JsonObject; results: unknown[]; meta: JsonObject } & JsonObject

const meta = (extra: Record<string, unknown> = {}) => ({
  request_id: 'req_01HZX3',
  credits_used: 1,
  cached: false,
  engine: 'google',
  route: [{ engine: 'google', pool: 'default', status: 200, ms: 812 }],
  latency_ms: 934,
  parse_quality: 'ok',
  resolved_urls: true,
  ...extra,
})

export function searchBody(): Body {
  return {
    request: {
      endpoint: 'search',
      engine: 'google',
      q: 'espresso machine',
      country: 'us',
      language: 'en',
      num: 10,
      page: 1,
      safe: 'off',
      device: 'desktop',
      ads: true,
    },
    results: [
      {
        position: 1,
        title: 'The 6 Best Espresso Machines of 2024 | Tested & Reviewed',
        link: 'https://www.seriouseats.com/best-espresso-machines-7100546',
        domain: 'seriouseats.com',
        displayed_link: 'https://www.seriouseats.com › Equipment',
        snippet: 'We tested 14 espresso machines; the *Breville Bambino Plus* is our top pick.',
        date: 'Mar 4, 2024',
        sitelinks: [
          { title: 'Best Overall', link: 'https://www.seriouseats.com/best-espresso-machines-7100546#overall' },
          { title: 'Budget [Pick]', link: 'https://www.seriouseats.com/best-espresso-machines-7100546#budget' },
        ],
      },
      {
        position: 2,
        title: 'Espresso machine - Wikipedia',
        link: 'https://en.wikipedia.org/wiki/Espresso_machine_(coffee)',
        domain: 'en.wikipedia.org',
        snippet: 'An espresso machine brews coffee by forcing pressurized water near boiling point through a "puck".',
      },
      {
        position: 3,
        title: '# 1 Rated <Espresso> Deals',
        link: 'https://deals.example.com/espresso?ref=a|b',
        domain: 'deals.example.com',
        snippet: null,
        date: undefined,
      },
    ],
    people_also_ask: [
      {
        question: 'Is a $200 espresso machine worth it?',
        snippet: 'For most home baristas, yes, if it holds temperature.',
        link: 'https://www.reddit.com/r/espresso/comments/abc',
      },
      { question: 'What is the 1 2 3 rule for espresso?' },
    ],
    related_searches: [{ query: 'espresso machine with grinder' }, { query: 'best espresso machine under $500' }],
    knowledge_graph: {
      title: 'Espresso machine',
      type: 'Kitchen appliance',
      description: 'An espresso machine brews coffee by forcing pressurized water through ground coffee.',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Espresso_machine' },
      attributes: { inventor: 'Angelo Moriondo', first_patented: '1884' },
    },
    answer_box: {
      type: 'featured_snippet',
      title: 'How to choose an espresso machine',
      answer: '9 bars of pressure',
      snippet: 'Most machines brew at 9 bars of pressure.',
      link: 'https://www.example.org/guide',
      domain: 'example.org',
    },
    top_stories: [
      {
        title: 'Breville recalls 2,000 espresso machines',
        link: 'https://www.theverge.com/2024/3/1/breville-recall',
        source: 'The Verge',
        date: '2 hours ago',
        image_url: 'https://cdn.theverge.com/recall.jpg',
      },
    ],
    places: [
      {
        position: 1,
        title: 'Espresso Parts',
        address: '2900 Mottman Rd SW, Olympia, WA',
        rating: 4.7,
        rating_count: 312,
        type: 'Coffee machine supplier',
        phone_number: '+1 360-555-0134',
        website: 'https://www.espressoparts.com/',
        place_id: 'ChIJ7x9aQm1zkVQR',
        cid: '1234567890',
      },
    ],
    ads: [
      {
        position: 1,
        block: 'top',
        title: 'Espresso Machines on Sale',
        link: 'https://www.williams-sonoma.com/espresso',
        domain: 'williams-sonoma.com',
        snippet: 'Free shipping on orders over $49.',
      },
    ],
    meta: meta(),
  }
}

export function newsBody(): Body {
  return {
    request: { endpoint: 'news', engine: 'google', q: 'fed rates', country: 'us', language: 'en', num: 10, page: 2 },
    results: [
      {
        position: 11,
        title: 'Fed holds rates steady, signals 3 cuts in 2024',
        link: 'https://www.reuters.com/markets/us/fed-holds-2024-03-20/',
        domain: 'reuters.com',
        snippet: 'The Federal Reserve held its policy rate in the 5.25%-5.50% range.',
        date: '3 hours ago',
        source: 'Reuters',
        image_url: 'https://www.reuters.com/resizer/fed.jpg',
      },
      {
        position: 12,
        title: 'What the Fed decision means for mortgages',
        link: 'https://www.cnbc.com/2024/03/20/fed-mortgages.html',
        domain: 'cnbc.com',
        snippet: '',
        date: '1 day ago',
        source: null,
      },
    ],
    meta: meta({ cached: true, cached_at: '2024-03-20T18:02:11Z', credits_used: 0.5 }),
  }
}

export function imagesBody(): Body {
  return {
    request: { endpoint: 'images', engine: 'google', q: 'golden retriever', country: 'us', language: 'en', num: 10, page: 1 },
    results: [
      {
        position: 1,
        title: 'Golden Retriever [Dog Breed]',
        image_url: 'https://upload.wikimedia.org/golden_retriever.jpg',
        image_width: 1920,
        image_height: 1280,
        thumbnail_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9Gc1',
        source: 'Wikipedia',
        domain: 'en.wikipedia.org',
        link: 'https://en.wikipedia.org/wiki/Golden_Retriever',
      },
      {
        position: 2,
        title: 'Puppy in snow',
        image_url: 'https://images.example.com/puppy.jpg',
        source: 'Example Photos',
        domain: 'images.example.com',
        link: 'https://images.example.com/puppy',
      },
    ],
    meta: meta(),
  }
}

export function videosBody(): Body {
  return {
    request: { endpoint: 'videos', engine: 'google', q: 'latte art', country: 'us', language: 'en', num: 10, page: 1 },
    results: [
      {
        position: 1,
        title: 'Latte Art for Beginners',
        link: 'https://www.youtube.com/watch?v=abc123',
        domain: 'youtube.com',
        snippet: 'Pour a heart in five steps.',
        image_url: 'https://i.ytimg.com/vi/abc123/hq.jpg',
        duration: '12:04',
        source: 'YouTube',
        channel: 'Lance Hedrick',
        date: '2 weeks ago',
      },
    ],
    meta: meta(),
  }
}

export function mapsBody(): Body {
  return {
    request: { endpoint: 'maps', engine: 'google', q: 'coffee', country: 'us', language: 'en', location: 'Austin, Texas' },
    results: [
      {
        position: 1,
        title: 'Houndstooth Coffee',
        address: '401 Congress Ave #100c, Austin, TX 78701',
        latitude: 30.2665,
        longitude: -97.7429,
        rating: 4.6,
        rating_count: 1287,
        price_level: '$$',
        type: 'Coffee shop',
        types: ['Coffee shop', 'Cafe'],
        website: 'https://www.houndstoothcoffee.com/',
        phone_number: '(512) 555-0199',
        opening_hours: { Monday: '7 AM–6 PM', Tuesday: '7 AM–6 PM', Sunday: 'Closed' },
        thumbnail_url: 'https://lh5.googleusercontent.com/p/houndstooth.jpg',
        place_id: 'ChIJd8BlQ2BZwokRAFUEcm_qrcA',
        cid: '13885429013519480144',
        fid: '0x8644b50a1f0f1d0b:0xc0adea7e72055400',
      },
      {
        position: 2,
        title: 'Mystery Café',
        rating: null,
        types: ['Cafe'],
        place_id: null,
      },
    ],
    meta: meta(),
  }
}

export function shoppingBody(): Body {
  return {
    request: { endpoint: 'shopping', engine: 'google', q: 'aeropress', country: 'us', language: 'en', page: 1 },
    results: [
      {
        position: 1,
        title: 'AeroPress Original | Coffee Maker',
        source: 'Amazon.com',
        link: 'https://www.amazon.com/dp/B0047BIWSK',
        price: '$39.95',
        price_value: 39.95,
        currency: 'USD',
        delivery: 'Free delivery',
        image_url: 'https://m.media-amazon.com/aeropress.jpg',
        rating: 4.8,
        rating_count: 21034,
        offers: '12 stores',
        product_id: '5873219011',
      },
      {
        position: 2,
        title: 'AeroPress Go Travel',
        source: 'Target',
        link: 'https://www.target.com/p/aeropress-go',
        price_value: 31.99,
        currency: 'USD',
      },
    ],
    meta: meta(),
  }
}

export function scholarBody(): Body {
  return {
    request: { endpoint: 'scholar', engine: 'google', q: 'coffee consumption mortality', language: 'en', num: 10, page: 1 },
    results: [
      {
        position: 1,
        title: 'Association of coffee drinking with total and cause-specific mortality',
        link: 'https://www.nejm.org/doi/full/10.1056/NEJMoa1112010',
        domain: 'nejm.org',
        publication_info: 'ND Freedman, Y Park - New England Journal of Medicine, 2012',
        snippet: 'Coffee drinking was inversely associated with total mortality.',
        year: 2012,
        cited_by: 1843,
        pdf_url: 'https://www.nejm.org/doi/pdf/10.1056/NEJMoa1112010',
        id: 'xYz123',
      },
    ],
    meta: meta(),
  }
}

export function patentsBody(): Body {
  return {
    request: { endpoint: 'patents', engine: 'google', q: 'espresso pump', num: 10, page: 1 },
    results: [
      {
        position: 1,
        title: 'Espresso machine with rotary pump',
        snippet: 'A pump delivers water at 9 bar to a brewing chamber.',
        link: 'https://patents.google.com/patent/US9999999B2/en',
        publication_number: 'US9999999B2',
        priority_date: '2015-06-01',
        filing_date: '2016-05-30',
        grant_date: '2018-06-05',
        publication_date: '2018-06-05',
        inventor: 'Mario Rossi',
        assignee: 'La Marzocco S.r.l.',
        language: 'en',
        pdf_url: 'https://patentimages.storage.googleapis.com/US9999999B2.pdf',
        thumbnail_url: 'https://patentimages.storage.googleapis.com/US9999999B2.png',
      },
    ],
    meta: meta(),
  }
}

export function reviewsBody(): Body {
  return {
    request: { endpoint: 'reviews', place_id: 'ChIJd8BlQ2BZwokRAFUEcm_qrcA', sort: 'newest', num: 10, country: 'us', language: 'en' },
    results: [
      {
        rating: 5,
        date: '2 weeks ago',
        iso_date: '2024-03-06T14:21:00Z',
        snippet: 'Best cortado in town.\nStaff knows their *beans*.',
        likes: 3,
        user: { name: 'Dana K.', thumbnail: 'https://lh3.googleusercontent.com/a/dana', reviews: 48 },
        response: { snippet: 'Thanks Dana, see you soon!', date: '1 week ago' },
      },
      {
        rating: 2,
        date: 'a month ago',
        iso_date: '2024-02-10T09:00:00Z',
        snippet: '- too loud, > 20 min wait',
        likes: 0,
        user: { name: 'Sam', thumbnail: null, reviews: 1 },
        response: null,
      },
    ],
    next_page_token: 'CAESY0NBRVFDaG9',
    meta: meta(),
  }
}

export function autocompleteBody(): Body {
  return {
    request: { endpoint: 'autocomplete', q: 'espre', country: 'us', language: 'en' },
    results: [{ value: 'espresso' }, { value: 'espresso machine' }],
    meta: meta({ credits_used: 0.5 }),
  }
}

export function lensBody(): Body {
  return {
    request: { endpoint: 'lens', url: 'https://example.com/mug.jpg', country: 'us', language: 'en' },
    results: [
      {
        position: 1,
        title: 'Ceramic mug',
        source: 'Etsy',
        link: 'https://www.etsy.com/listing/1',
        domain: 'etsy.com',
        image_url: 'https://i.etsystatic.com/1.jpg',
        thumbnail_url: 'https://encrypted-tbn1.gstatic.com/1',
      },
    ],
    meta: meta({ credits_used: 2 }),
  }
}
