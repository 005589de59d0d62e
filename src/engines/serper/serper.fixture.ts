/**
 * Test data: Serper's JSON answers (serper.dev, the key names of its documented responses and of
 * Trawl's Serper-compatible endpoint). Constructed to those shapes; values invented. Used by the
 * unit tests and by test/byo-upstreams.test.ts.
 */

const searchParameters = (type: string, q: string) => ({ q, gl: 'us', hl: 'en', type, engine: 'google' })

export const SERPER_ANSWERS: Record<string, Record<string, unknown>> = {
  search: {
    searchParameters: searchParameters('search', 'apple inc'),
    knowledgeGraph: {
      title: 'Apple',
      type: 'Technology company',
      website: 'http://www.apple.com/',
      imageUrl: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:apple',
      description: 'Apple Inc. is an American multinational technology company.',
      descriptionSource: 'Wikipedia',
      descriptionLink: 'https://en.wikipedia.org/wiki/Apple_Inc.',
      attributes: { Headquarters: 'Cupertino, CA', CEO: 'Tim Cook' },
    },
    answerBox: { title: 'Apple Inc. / Founded', answer: 'April 1, 1976' },
    organic: [
      {
        title: 'Apple',
        link: 'https://www.apple.com/',
        snippet: 'Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac.',
        sitelinks: [
          { title: 'Support', link: 'https://support.apple.com/' },
          { title: 'iPhone', link: 'https://www.apple.com/iphone/' },
        ],
        position: 1,
      },
      {
        title: 'Apple Inc. - Wikipedia',
        link: 'https://en.wikipedia.org/wiki/Apple_Inc.',
        snippet: 'Apple Inc. is an American multinational corporation and technology company.',
        date: 'Jan 15, 2026',
        attributes: { Founded: '1976' },
        position: 2,
      },
      { title: 'No link', snippet: 'dropped', position: 3 },
    ],
    peopleAlsoAsk: [
      { question: 'What does Apple Inc do?', snippet: 'Apple designs smartphones and computers.', title: 'About Apple', link: 'https://www.apple.com/about/' },
    ],
    relatedSearches: [{ query: 'Apple stock' }, { query: 'Apple careers' }],
    topStories: [
      {
        title: 'Apple unveils a new Mac',
        link: 'https://news.example/mac',
        source: 'Example News',
        date: '2 hours ago',
        imageUrl: 'https://news.example/mac.jpg',
      },
    ],
    credits: 1,
  },
  images: {
    searchParameters: searchParameters('images', 'golden retriever'),
    images: [
      {
        title: 'Golden Retriever puppy',
        imageUrl: 'https://dogs.example/golden.jpg',
        imageWidth: 1200,
        imageHeight: 800,
        thumbnailUrl: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:golden',
        thumbnailWidth: 275,
        thumbnailHeight: 183,
        source: 'Dogs Example',
        domain: 'dogs.example',
        link: 'https://dogs.example/golden-retriever',
        googleUrl: 'https://www.google.com/imgres?imgurl=x',
        position: 1,
      },
    ],
    credits: 1,
  },
  news: {
    searchParameters: searchParameters('news', 'solar power'),
    news: [
      {
        title: 'Solar power hits a record',
        link: 'https://news.example/solar',
        snippet: 'Output rose 30% this year.',
        date: '3 hours ago',
        source: 'Example News',
        imageUrl: 'https://news.example/solar.jpg',
        position: 1,
      },
    ],
    credits: 1,
  },
  videos: {
    searchParameters: searchParameters('videos', 'javascript tutorial'),
    videos: [
      {
        title: 'JavaScript in 100 minutes',
        link: 'https://www.youtube.com/watch?v=abc',
        snippet: 'Learn JavaScript.',
        imageUrl: 'https://i.ytimg.com/vi/abc/hq.jpg',
        duration: '1:40:00',
        source: 'YouTube',
        channel: 'Code Channel',
        date: 'Mar 3, 2025',
        position: 1,
      },
    ],
    credits: 1,
  },
  places: {
    searchParameters: searchParameters('places', 'coffee austin'),
    places: [
      {
        position: 1,
        title: 'Houndstooth Coffee',
        address: '401 Congress Ave, Austin, TX 78701',
        latitude: 30.2665,
        longitude: -97.7431,
        rating: 4.6,
        ratingCount: 1234,
        category: 'Coffee shop',
        phoneNumber: '(512) 555-0100',
        website: 'https://houndstoothcoffee.com/',
        cid: '1234567890123456789',
      },
      { position: 2, title: 'Epoch Coffee', address: '221 W N Loop Blvd, Austin, TX', rating: 4.5, ratingCount: '2,101', category: 'Cafe' },
    ],
    credits: 1,
  },
  shopping: {
    searchParameters: searchParameters('shopping', 'espresso machine'),
    shopping: [
      {
        title: 'Breville Barista Express',
        source: 'Example Store',
        link: 'https://store.example/breville',
        price: '$599.95',
        delivery: 'Free delivery',
        imageUrl: 'https://store.example/breville.jpg',
        rating: 4.7,
        ratingCount: 15000,
        offers: '10+',
        productId: '987654321',
        position: 1,
      },
    ],
    credits: 2,
  },
  scholar: {
    searchParameters: searchParameters('scholar', 'attention is all you need'),
    organic: [
      {
        title: 'Attention is all you need',
        link: 'https://proceedings.example/attention',
        publicationInfo: 'A Vaswani, N Shazeer - Advances in neural information processing systems, 2017',
        snippet: 'The dominant sequence transduction models are based on complex recurrent networks.',
        year: 2017,
        citedBy: 150000,
        pdfUrl: 'https://proceedings.example/attention.pdf',
        id: 'abcDEF123',
      },
    ],
    credits: 1,
  },
  autocomplete: {
    searchParameters: searchParameters('autocomplete', 'appl'),
    suggestions: [{ value: 'apple' }, { value: 'apple stock' }, { value: 'apple' }],
    credits: 1,
  },
}
