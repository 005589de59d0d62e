import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { parseGoogleShopping } from './google-shopping.parse.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/shopping/', import.meta.url)
const constructed = (name: string) => readFileSync(new URL(name, CONSTRUCTED), 'utf8')
const real = (path: string) => fixture(`serp/google/${path}`).toString('utf8')

describe('constructed tbm=shop grid (US)', () => {
  const page = parseGoogleShopping(constructed('shopping-tbm-shop-us.constructed.html'), { country: 'us', page: 1 })

  it('reads the five listings in order and leaves the sponsored carousel out', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => r.title)).toEqual([
      "Stridewell Trail Runner GTX Men's Running Shoes",
      "Pacer Road Lite 4 Women's Running Shoe",
      'Velo Sprint Racing Flat',
      "Dash Kids' Running Sneaker (2 Pack)",
      'UltraMax Cushion 9 Running Shoes',
    ])
    expect(page.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5])
  })

  it('fills every field of a full card', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: "Stridewell Trail Runner GTX Men's Running Shoes",
      source: 'Summit Outfitters',
      link: 'https://www.summit-outfitters.example/products/trail-runner-gtx?size=10',
      price: '$1,299.00',
      price_value: 1299,
      currency: 'USD',
      delivery: 'Free delivery',
      image_url: 'https://encrypted-tbn1.gstatic.com/shopping?q=tbn:ANd9GcTrailRunnerGtx&usqp=CAE',
      rating: 4.6,
      rating_count: 2345,
      product_id: '4815162342001',
    })
  })

  it('reads the current price, not the struck-through one', () => {
    expect(page.results[1]).toMatchObject({ price: '$89.95', price_value: 89.95, delivery: 'Free delivery by Fri', rating_count: 812 })
  })

  it('falls back to the Google product page and keeps the compare-prices text', () => {
    expect(page.results[2]).toEqual({
      position: 3,
      title: 'Velo Sprint Racing Flat',
      source: 'Multiple stores',
      link: 'https://www.google.com/shopping/product/4815162342003?q=running+shoes&prds=eto:3&sa=X',
      price: '$64.99',
      price_value: 64.99,
      currency: 'USD',
      delivery: '+$5.99 shipping',
      offers: 'Compare prices from 5+ stores',
      product_id: '4815162342003',
    })
  })

  it('takes no rating count from a title "(2 Pack)" and reads "12k" counts', () => {
    expect(page.results[3]).not.toHaveProperty('rating_count')
    expect(page.results[3]).not.toHaveProperty('rating')
    expect(page.results[4]).toMatchObject({ rating: 4.8, rating_count: 12000, offers: 'Compare prices from 10+ stores' })
  })

  it('never returns an inline data: image', () => {
    expect(page.results[2]).not.toHaveProperty('image_url')
  })
})

describe('constructed tbm=shop list (DE, page 2)', () => {
  const page = parseGoogleShopping(constructed('shopping-tbm-shop-de.constructed.html'), { country: 'de', page: 2 })

  it('numbers positions after the first 60-product page', () => {
    expect(page.results.map((r) => r.position)).toEqual([61, 62, 63])
    expect(page.parse_quality).toBe('ok')
  })

  it('reads German prices, ratings, counts, delivery and offers', () => {
    expect(page.results[0]).toEqual({
      position: 61,
      title: 'Brühmeister Barista Pro 870 Siebträgermaschine Edelstahl',
      source: 'MediaWelt',
      link: 'https://www.mediawelt.example/kaffee/barista-pro-870',
      price: '1.299,00 €',
      price_value: 1299,
      currency: 'EUR',
      delivery: 'Kostenloser Versand',
      image_url: 'https://encrypted-tbn0.gstatic.com/shopping?q=tbn:ANd9GcBaristaPro&usqp=CAE',
      rating: 4.5,
      rating_count: 1234,
      offers: 'Preise von 12 Shops vergleichen',
      product_id: '9988776655001',
    })
    expect(page.results[1]).toMatchObject({ price: '39,99 €', price_value: 39.99, delivery: 'Versand: 4,95 €', source: 'Kaffeehaus Müller' })
    expect(page.results[2]).toMatchObject({ price: 'ab 59,00 €', price_value: 59, rating: 3.9, rating_count: 87 })
  })
})

describe('real capture: product ads on a web page (best running shoes, 2023)', () => {
  const page = parseGoogleShopping(real('web-desktop/codechallenge-best-running-shoes.html'), { country: 'us' })

  it('reads the 12 product ads and skips the "view all" tile', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(12)
    expect(page.results.map((r) => r.source)).toEqual([
      'Nike',
      'Brooks Running',
      'Allbirds',
      'NOBULL',
      'Nike',
      'On',
      'On',
      'adidas',
      'Allbirds',
      'Nike',
      'Allbirds',
      'Brooks Running',
    ])
  })

  it('fills title, merchant link, price, rating, count, image and product id', () => {
    const first = page.results[0]
    expect(first).toMatchObject({
      position: 1,
      title: "Nike Men's Pegasus 40 Road Running Shoes in White, Size: 10.5 | DV3853-100",
      source: 'Nike',
      link: 'https://www.nike.com/t/pegasus-40-mens-road-running-shoes-mVJdmS/DV3853-100?nikemt=true',
      price: '$130.00',
      price_value: 130,
      currency: 'USD',
      rating: 4.7,
      rating_count: 325,
      product_id: '9528548372259318066',
    })
    expect(first?.image_url).toMatch(/^https:\/\/encrypted-tbn3\.gstatic\.com\/shopping\?q=tbn:ANd9GcQ3DwyGHBsaI8fiO1/)
  })

  it('reads sale prices, "9k+" counts and delivery dates', () => {
    expect(page.results[1]).toMatchObject({ price: '$89.95', price_value: 89.95, product_id: '10844162547206612698' })
    expect(page.results[2]).toMatchObject({ rating: 4.6, rating_count: 9000 })
    expect(page.results[5]).toMatchObject({ title: 'On Cloudstratus 3 Undyed-White | Sand, Mens, Size: 10.5', price_value: 179.99, delivery: 'Free by 9/8' })
    expect(page.results[5]).not.toHaveProperty('rating')
    expect(page.results[7]).toMatchObject({ source: 'adidas', price: '$160.00', delivery: 'Free by 9/18' })
  })
})

describe('real capture: product ads in a French web page (2020)', () => {
  const page = parseGoogleShopping(real('web-desktop/old-2020/sescraper-shopping-pla.html'), { country: 'fr' })

  it('reads six ads once each, despite the per-breakpoint copies of title and merchant', () => {
    expect(page.results.map((r) => r.title)).toEqual([
      'Classic Series - Baskets 317 Blanc',
      'Tennis Lacoste Carnaby Evo Noire Enfant 28',
      'Lacoste Baskets Lerond 418 Size 9 in Blanc pour Homme',
      'Lacoste Carnaby Evo 120 2 Blanc - Baskets - Disponible en 39',
      'Lacoste CARNABY EVO BL 1 Baskets basses enfant (garcons)',
      'Chaussure Nike Court Royale pour Homme - Blanc',
    ])
  })

  it('reads euro prices in the French format and un-truncates merchant names from the card label', () => {
    expect(page.results.map((r) => [r.source, r.price, r.price_value, r.currency])).toEqual([
      ['LaBoutiqueOfficielle.com', '39,99 €', 39.99, 'EUR'],
      ['Chausport', '45,00 €', 45, 'EUR'],
      ['GetTheLabel.com', '44,99 €', 44.99, 'EUR'],
      ['Sarenza', '45,50 €', 45.5, 'EUR'],
      ['Spartoo.com', '58,00 €', 58, 'EUR'],
      ['Nike Officiel', '55,00 €', 55, 'EUR'],
    ])
  })

  it('reads French ratings ("4,9 sur 5"), counts and delivery', () => {
    expect(page.results[1]).toMatchObject({
      link: 'https://www.chausport.com/p/lacoste-carnaby-evo-noire-enfant-173257.html',
      rating: 4.9,
      rating_count: 46,
      delivery: 'Livraison gratuite',
    })
    expect(page.results[5]).toMatchObject({ rating: 4.8, rating_count: 9000 })
  })
})

describe('pages without products', () => {
  it('gives nothing for a web page without a shopping block', () => {
    expect(parseGoogleShopping(real('web-desktop/zlurad-coffee.html'))).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('never parses the CAPTCHA page', () => {
    expect(parseGoogleShopping(real('web-desktop/zlurad-recaptcha.html'))).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('never parses a consent wall or a script-only shell', () => {
    const consent = '<html><body><form action="https://consent.google.com/save"><h1>Before you continue to Google</h1></form></body></html>'
    const shell = '<html><body><noscript><a href="/httpservice/retry/enablejs?sei=x">Click here</a></noscript></body></html>'
    expect(parseGoogleShopping(consent)).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseGoogleShopping(shell)).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseGoogleShopping('')).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('marks a page partial when a card has no title or no price', () => {
    const html =
      '<div id="rso"><div class="sh-dgr__grid-result" data-docid="1234567"><div class="sh-dgr__content"><h3>Kettle</h3><span class="a8Pemb">$20.00</span></div></div>' +
      '<div class="sh-dgr__grid-result" data-docid="1234568"><div class="sh-dgr__content"><span class="a8Pemb">$30.00</span></div></div>' +
      '<div class="sh-dgr__grid-result" data-docid="1234569"><div class="sh-dgr__content"><h3>Teapot</h3><span>Price unavailable</span></div></div></div>'
    const page = parseGoogleShopping(html, { country: 'us' })
    expect(page.parse_quality).toBe('partial')
    expect(page.results).toEqual([
      { position: 1, title: 'Kettle', price: '$20.00', price_value: 20, currency: 'USD', product_id: '1234567' },
      { position: 2, title: 'Teapot', product_id: '1234569' },
    ])
  })

  it('reads no rating out of a long card label where "2 de 5" is part of the title', () => {
    const html =
      '<div id="rso"><div class="pla-unit"><a class="clickable-card" href="https://tienda.example/z" aria-label="Zapatillas running talla 42 de 5 colores por 59,99 € de Tienda"></a>' +
      '<div role="heading"><span class="pymv4e">Zapatillas running talla 42 de 5 colores</span></div><span class="e10twf">59,99 €</span></div></div>'
    const page = parseGoogleShopping(html, { country: 'es' })
    expect(page.results).toEqual([
      {
        position: 1,
        title: 'Zapatillas running talla 42 de 5 colores',
        link: 'https://tienda.example/z',
        price: '59,99 €',
        price_value: 59.99,
        currency: 'EUR',
      },
    ])
  })

  it('finds product cards by their numeric data-docid and product link when the classes change', () => {
    const html =
      '<div id="rso"><div class="zz1" data-docid="555666777"><a href="/shopping/product/555666777?q=x"><h3>Renamed Card</h3></a>' +
      '<div><span>£12.50</span></div><div><span>Corner Shop</span></div></div></div>'
    const page = parseGoogleShopping(html, { country: 'gb' })
    expect(page.results).toEqual([
      {
        position: 1,
        title: 'Renamed Card',
        link: 'https://www.google.com/shopping/product/555666777?q=x',
        price: '£12.50',
        price_value: 12.5,
        currency: 'GBP',
        product_id: '555666777',
      },
    ])
  })
})
