// The WAL checkpointer's thread (database.ts). Plain CommonJS: it needs no TypeScript loader.
// Copying committed WAL pages into the database file (and its fsync) takes tens of milliseconds
// once the WAL holds a thousand pages; done here, on a connection of its own, no request waits for it.
const { parentPort, workerData } = require('node:worker_threads')
const Database = require('better-sqlite3')

const db = new Database(workerData.path)
db.pragma('busy_timeout = 5000')
db.pragma('wal_autocheckpoint = 0')

// PASSIVE never waits for readers or writers: it copies what it can and the next round the rest.
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs)

parentPort.on('message', (message) => {
  if (message !== 'stop') return
  clearInterval(timer)
  db.close()
  parentPort.close()
})
