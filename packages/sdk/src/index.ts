export {
  type BatchProgress,
  type Billing,
  isBatchJob,
  type PublicOperation,
  type RawResponse,
  type RequestOptions,
  type ResponseInfo,
  ROUTES,
  SDK_VERSION,
  Trawl,
  type TrawlOptions,
  type WaitOptions,
} from './client.ts'
export * from './errors.ts'
export type * from './types.ts'
export * from './webhooks.ts'
