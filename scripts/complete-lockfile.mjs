// The npm registry these machines reach lacks other platforms' native packages (darwin, win32,
// android, … builds of rollup, esbuild, tailwind's oxide, …). `npm install` then leaves them out
// of package-lock.json, and `npm ci` refuses the lock as out of sync. This adds an entry for each
// missing optional platform package, marked optional with its os/cpu, so `npm ci` knows it and
// skips it as another platform's. Run after any `npm install` that changes the lock.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const lockPath = path.resolve(import.meta.dirname, '..', 'package-lock.json')
const lock = JSON.parse(readFileSync(lockPath, 'utf8'))
const packages = lock.packages

const OS = ['darwin', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony', 'linux']
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'wasm32']

function platformOf(name) {
  const parts = name.split('/').pop().split('-')
  const os = parts.find((part) => OS.includes(part))
  const cpu = parts.find((part) => CPU.includes(part)) ?? (parts.includes('universal') ? undefined : undefined)
  if (name.includes('wasm32')) return { cpu: ['wasm32'] }
  if (!os) return undefined
  return { os: [os], ...(cpu ? { cpu: [cpu] } : {}) }
}

let added = 0
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`
    const hoisted = `node_modules/${name}`
    if (packages[nested] || packages[hoisted]) continue
    const platform = platformOf(name)
    if (!platform) continue
    const version = /^\d+\.\d+\.\d+/.exec(String(spec).replace(/^[\^~=]/, ''))?.[0]
    if (!version) continue
    packages[hoisted] = { version, ...platform, optional: true }
    added += 1
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))))
lock.packages = sorted
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`package-lock.json: added ${added} other-platform optional entries`)
