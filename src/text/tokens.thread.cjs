// The token thread's entry (tokens.ts) when the sources run through tsx: worker threads do not
// inherit the tsx loader, so this registers tsx's require hook and loads the TypeScript module
// (reader.worker.cjs does the same for the reader threads).
const { register } = require('tsx/cjs/api')

register()
module.exports = require('./tokens.thread.ts').tokensOnThread
