// Imported first by every entry point (bin/trawl.mjs, bin/run-ts.mjs, vitest.config.ts): on a Node.js
// older than the one package.json's "engines" names, native modules (better-sqlite3) crash the
// process with a bare segmentation fault, so this stops before any is loaded, with one line that
// says what was found, what is needed and how to get it.
const NEEDED = 22

/** The line to print for a Node.js version older than needed, or null when it is recent enough. */
export function nodeVersionProblem(version) {
  const major = Number(String(version).replace(/^v/, '').split('.')[0])
  if (major >= NEEDED) return null
  return (
    `trawl needs Node.js ${NEEDED} or later (24 LTS recommended); this is Node.js ${String(version).replace(/^v/, '')}. ` +
    'Install it with nvm (nvm install 24), use the Docker image, or in a checkout run: source .ci/use-node.sh'
  )
}

const problem = nodeVersionProblem(process.versions.node)
if (problem) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}
