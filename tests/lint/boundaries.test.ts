import path from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

/*
 * The layer boundaries of eslint.config.js: each case lints a file placed (by its path) in one
 * area with an import the boundary forbids, and expects `no-restricted-imports` to report it.
 * lintText with a filePath applies the config of that path without writing to the tree.
 */
const root = path.resolve(import.meta.dirname, '..', '..')
const eslint = new ESLint({ cwd: root })

async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) })
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message)
}

describe('ESLint layer boundaries', () => {
  const forbidden: Array<[area: string, file: string, code: string]> = [
    ['console → backend (alias)', 'app/lib/boundary-probe.ts', "import { ROLE } from '#server/backend/rbac/authorizer.ts'\nexport const probe = ROLE\n"],
    ['console → backend (relative)', 'app/routes/boundary-probe.tsx', "import { x } from '../../server/backend/backend-app.ts'\nexport const probe = x\n"],
    ['component → backend', 'app/components/boundary-probe.tsx', "import { x } from '#server/backend/identity/credentials.ts'\nexport const probe = x\n"],
    ['component → route (alias)', 'app/components/boundary-probe.tsx', "import type { loader } from '#app/routes/_console.tsx'\nexport type Probe = typeof loader\n"],
    ['component → route (relative)', 'app/components/incidents/boundary-probe.tsx', "import { x } from '../../routes/_console.tsx'\nexport const probe = x\n"],
    ['backend → gateway (alias)', 'server/backend/boundary-probe.ts', "import { x } from '#server/gateway/gateway-router.ts'\nexport const probe = x\n"],
    ['backend → gateway (relative)', 'server/backend/health/boundary-probe.ts', "import { x } from '../../gateway/upstream-target.ts'\nexport const probe = x\n"],
    ['gateway → backend (alias)', 'server/gateway/boundary-probe.ts', "import { x } from '#server/backend/identity/credentials.ts'\nexport const probe = x\n"],
    ['gateway → backend (relative)', 'server/gateway/boundary-probe.ts', "import { x } from '../backend/backend-app.ts'\nexport const probe = x\n"],
    ['contract → server', 'contract/boundary-probe.ts', "import { x } from '#server/env.ts'\nexport const probe = x\n"],
    ['contract → node built-in', 'contract/boundary-probe.ts', "import { x } from 'node:crypto'\nexport const probe = x\n"],
  ]

  it.each(forbidden)('reports %s', async (_area, file, code) => {
    const messages = await restrictedImports(file, code)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatch(/is restricted from being used by a pattern/)
  })

  it('lets each area import what it may', async () => {
    expect(await restrictedImports('app/lib/boundary-probe.ts', "import { ROLE_MATRIX } from '#contract/role-matrix.ts'\nexport const probe = ROLE_MATRIX\n")).toEqual([])
    expect(await restrictedImports('app/routes/boundary-probe.tsx', "import { x } from '#app/components/error-view.tsx'\nexport const probe = x\n")).toEqual([])
    expect(await restrictedImports('server/gateway/boundary-probe.ts', "import { cookieValue } from '#server/cookies.ts'\nexport const probe = cookieValue\n")).toEqual([])
    expect(await restrictedImports('server/backend/boundary-probe.ts', "import { SUB_BASES } from '#contract/sub-bases.ts'\nexport const probe = SUB_BASES\n")).toEqual([])
  })

  it('finds no boundary import in the tree', async () => {
    const results = await eslint.lintFiles(['app', 'server', 'contract'])
    const crossings = results.flatMap((result) =>
      result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => `${path.relative(root, result.filePath)}:${message.line} ${message.message}`),
    )
    expect(crossings).toEqual([])
  }, 120_000)
})
