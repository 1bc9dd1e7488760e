import { expect, it } from 'vitest'
import { allowConsoleError } from '#tests/support/setup.ts'

// tests/support/setup.ts fails every test that logs console.error unless it opts out.

it.fails('a test that logs console.error fails', () => {
  console.error('console-error-guard: logged on purpose; this test is expected to fail')
})

it('a test that calls allowConsoleError(reason) may log it', () => {
  allowConsoleError('this test checks the opt-out itself')
  console.error('console-error-guard: allowed on purpose')
  expect(() => allowConsoleError(' ')).toThrow('allowConsoleError needs a reason')
})

it.fails('the opt-out ends with the test that asked for it', () => {
  console.error('console-error-guard: logged on purpose after an allowed test; expected to fail')
})
