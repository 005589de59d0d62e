#!/usr/bin/env node
// Runs one TypeScript file (benchmarks, scripts) through tsx: `node bin/run-ts.mjs bench/x.ts`.
import './node-version.mjs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { register } from 'tsx/esm/api'

register()
const [file, ...rest] = process.argv.slice(2)
if (!file) throw new Error('usage: run-ts <file.ts> [args]')
process.argv = [process.argv[0], file, ...rest]
await import(pathToFileURL(resolve(file)).href)
