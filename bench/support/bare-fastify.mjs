/**
 * The baseline of bench/search.bench.ts: a bare Fastify handler answering one fixed JSON body, in a
 * process of its own (as Trawl runs in its own), so that neither server shares an event loop with
 * the bench or the load generator. Plain JavaScript: no TypeScript loader in the measured process.
 * Usage: node <flags> bench/support/bare-fastify.mjs <file holding the body>; prints its URL.
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const body = readFileSync(process.argv[2], 'utf8')
const app = Fastify({ logger: false })
app.get('/v1/search', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body))
const url = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${url}\n`)
process.once('SIGTERM', () => app.close().then(() => process.exit(0)))
