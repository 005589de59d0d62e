import type { Store } from '../../store/database.ts'

// Crawl workers in this process that share a Store are woken at once when a crawl is queued,
// instead of at their next poll; workers in other processes pick it up at theirs.
const wakers = new WeakMap<Store, Set<() => void>>()

export function onCrawlQueued(store: Store, wake: () => void): () => void {
  let set = wakers.get(store)
  if (!set) {
    set = new Set()
    wakers.set(store, set)
  }
  set.add(wake)
  return () => set.delete(wake)
}

export function wakeCrawlWorkers(store: Store) {
  for (const wake of wakers.get(store) ?? []) wake()
}
