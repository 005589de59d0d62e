import { z } from 'zod'
import { parseWith } from '../http/parse-input.ts'

/** Where a job's signed event goes instead of the account webhook. */
export const webhookUrl = z.url({ protocol: /^https?$/, error: 'webhook_url must be an http(s) URL' }).max(2048, 'webhook_url must be at most 2,048 characters')

/** The `{id}` in the path of a batch job, crawl, research job or monitor. */
export const JobIdParams = z.strictObject({ id: z.string().min(1).max(64) })

/** The `{id}` of a request's path, checked (a 400 names it otherwise). */
export const jobIdOf = (params: unknown) => parseWith(JobIdParams, params).id
