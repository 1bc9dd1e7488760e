import { afterAll, afterEach, expect } from 'vitest'

// Nothing in a test run should talk to the outside world or depend on the caller's shell.
process.env.TZ = 'UTC'
process.env.LOG_LEVEL ??= 'silent'

/*
 * A test that makes something log `console.error` fails: React's warnings (a missing key, a
 * hydration mismatch, an act() warning) and the server's caught-and-logged errors reach the
 * console and nowhere else, so a passing run that prints them hides a bug. The call still prints,
 * so the failure shows what was logged. A test that expects an error says so with
 * allowConsoleError(reason). console.error is wrapped by hand rather than with vi.spyOn, so a
 * test's own vi.restoreAllMocks() cannot remove the check.
 */
const logged: string[] = []
let allowedForFile: string | undefined
let allowedForTest: string | undefined
const original = console.error.bind(console)
console.error = (...args: unknown[]) => {
  logged.push(args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(' '))
  original(...args)
}

/**
 * Lets the current test (called inside it) or the whole file (called at its top level) log
 * console.error. The reason is required: it is the note a reader needs to trust the opt-out.
 */
export function allowConsoleError(reason: string): void {
  if (!reason.trim()) throw new Error('allowConsoleError needs a reason')
  if (expect.getState().currentTestName === undefined) allowedForFile = reason
  else allowedForTest = reason
}

function takeLogged(): string[] {
  const lines = logged.splice(0)
  const allowed = allowedForTest ?? allowedForFile
  allowedForTest = undefined
  return allowed ? [] : lines
}

function failOn(lines: string[], where: string): void {
  if (lines.length === 0) return
  throw new Error(
    `${where} logged console.error ${lines.length} time(s); fix the cause or call allowConsoleError(reason):\n` +
      lines.map((line) => `  ${line.slice(0, 2000)}`).join('\n'),
  )
}

// Errors logged by beforeAll hooks are counted against the file's first test.
afterEach(() => failOn(takeLogged(), 'this test'))
afterAll(() => failOn(takeLogged(), 'the hooks of this file'))
