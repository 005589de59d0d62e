import type { FastifyInstance } from 'fastify'
import { renderReference } from './reference.page.ts'

/** The OpenAPI document, generated from the same zod schemas that validate requests, and a page for people. */
export function docsRoutes(app: FastifyInstance) {
  let page: string | undefined
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) => {
    page ??= renderReference(app.swagger() as unknown as OpenApiDocument)
    return reply.type('text/html; charset=utf-8').send(page)
  })
}

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string }
  paths: Record<string, Record<string, OpenApiOperation>>
}

export interface OpenApiOperation {
  summary?: string
  description?: string
  tags?: string[]
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema; description?: string }[]
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>
}

export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  enum?: unknown[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  minimum?: number
  maximum?: number
  maxLength?: number
  minLength?: number
  default?: unknown
  description?: string
  pattern?: string
}
