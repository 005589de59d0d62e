import type { FastifyInstance } from 'fastify'
import type { Services } from '../../deps.ts'
import { parseInput, parseWith } from '../../http/parse-input.ts'
import { AccountIdParams, AddCreditsBody, AddMemberBody, CreateAccountBody, CreateKeyBody, PatchAccountBody } from './accounts.schema.ts'
import { addCredits, addMember, createAccount, createKey, getAccount, patchAccount } from './accounts.service.ts'

/** The operator API (README.md "Operating it"): what the commercial service does with payments, for self-hosters. */
export function adminRoutes(app: FastifyInstance, services: Pick<Services, 'store' | 'keys'>) {
  const { store, keys } = services
  const opts = (summary: string) => ({ config: { auth: 'admin' as const }, schema: { summary, tags: ['operator'], hide: true } })
  const idOf = (params: unknown) => parseWith(AccountIdParams, params).id

  app.post('/admin/v1/accounts', opts('Create an account with its owner and first key'), async (req, reply) => {
    const created = await createAccount(store, parseInput(CreateAccountBody, req))
    return reply.code(201).send(created)
  })
  app.get('/admin/v1/accounts/:id', opts('Read an account'), async (req) => getAccount(store, idOf(req.params)))
  app.patch('/admin/v1/accounts/:id', opts('Change plan, caps, limits or webhook'), async (req) => {
    const id = idOf(req.params)
    const account = await patchAccount(store, id, parseInput(PatchAccountBody, req))
    keys.invalidateAccount(id) // plan and rate changes apply to cached keys at once
    return account
  })
  app.post('/admin/v1/accounts/:id/credits', opts('Add a credit pack'), async (req) => {
    const id = idOf(req.params)
    const body = parseInput(AddCreditsBody, req)
    const account = await addCredits(store, id, body.credits, body.plan)
    keys.invalidateAccount(id)
    return account
  })
  app.post('/admin/v1/accounts/:id/members', opts('Add a team member'), async (req, reply) => {
    const body = parseInput(AddMemberBody, req)
    return reply.code(201).send(await addMember(store, idOf(req.params), body.email, body.password))
  })
  app.post('/admin/v1/accounts/:id/keys', opts('Create an API key'), async (req, reply) => {
    return reply.code(201).send(await createKey(store, idOf(req.params), parseInput(CreateKeyBody, req)))
  })
}
