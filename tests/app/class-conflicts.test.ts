import { afterEach, describe, expect, it } from 'vitest'
import { ClassConflictError, conflictingClasses, installClassConflictCheck } from '#app/lib/class-conflicts.server.ts'
import { checkClassNames, cn } from '#app/lib/cn.ts'
import { buttonVariants } from '#app/components/ui/button.tsx'

describe('Tailwind class conflicts', () => {
  afterEach(() => checkClassNames(undefined))

  it('finds utilities a later one overrides, and nothing else', () => {
    expect(conflictingClasses('px-2 py-1 px-4')).toEqual(['px-2'])
    expect(conflictingClasses('text-sm font-medium text-xs')).toEqual(['text-sm'])
    expect(conflictingClasses('flex flex items-center')).toEqual([])
    expect(conflictingClasses('bg-card read-only:bg-muted/40 hover:bg-accent')).toEqual([])
    expect(conflictingClasses('text-xl leading-tight')).toEqual([])
  })

  it('lets cn join freely until a check is installed, then refuses or reports conflicts', () => {
    expect(cn('p-2', 'p-4')).toBe('p-2 p-4')
    installClassConflictCheck('throw', () => undefined)
    expect(() => cn('p-2', { hidden: false }, 'p-4')).toThrow(ClassConflictError)
    expect(cn('p-2', 'm-4')).toBe('p-2 m-4')
    const warnings: string[] = []
    installClassConflictCheck('warn', (message) => warnings.push(message))
    expect(cn('h-8', 'h-9')).toBe('h-8 h-9')
    expect(warnings).toEqual(['conflicting Tailwind classes: h-8 overridden in "h-8 h-9"'])
    installClassConflictCheck(undefined, () => undefined)
    expect(cn('h-8', 'h-9')).toBe('h-8 h-9')
  })

  it('keeps every button variant and size free of conflicts', () => {
    for (const variant of ['default', 'destructive', 'outline', 'secondary', 'ghost', 'link'] as const) {
      for (const size of ['default', 'sm', 'lg', 'icon'] as const) {
        expect(conflictingClasses(buttonVariants({ variant, size }))).toEqual([])
      }
    }
  })
})
