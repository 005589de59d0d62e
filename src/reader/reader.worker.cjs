// A reader thread's entry (reader.pool.ts). Worker threads do not inherit the tsx loader that
// bin/trawl.mjs registers, so this registers tsx's require hook and loads the TypeScript worker.
// The require hook, not the ESM one: ESM hooks run on a loader thread of their own, about 15 MB
// more per reader thread.
const { register } = require('tsx/cjs/api')

register()
module.exports = require('./reader.worker.ts').readOnThread
