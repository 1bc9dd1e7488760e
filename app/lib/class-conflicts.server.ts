import { twMerge } from 'tailwind-merge'
import { checkClassNames } from './cn.ts'

export class ClassConflictError extends Error {}

/**
 * The classes twMerge would drop from a joined class string: utilities overridden by a later one
 * for the same property. A class repeated verbatim is not a conflict.
 */
export function conflictingClasses(classes: string): string[] {
  const kept = new Set(twMerge(classes).split(/\s+/).filter(Boolean))
  return [...new Set(classes.split(/\s+/).filter((name) => name && !kept.has(name)))]
}

/**
 * With LOOKOUT_CLASS_CONFLICTS=throw (the test runs) a render that joins conflicting utilities
 * fails; with `warn` it is logged. Off otherwise: production renders skip the check.
 */
export function installClassConflictCheck(mode: string | undefined, warn: (message: string) => void): void {
  if (mode !== 'throw' && mode !== 'warn') return checkClassNames(undefined)
  checkClassNames((classes) => {
    const dropped = conflictingClasses(classes)
    if (dropped.length === 0) return
    const message = `conflicting Tailwind classes: ${dropped.join(' ')} overridden in "${classes}"`
    if (mode === 'throw') throw new ClassConflictError(message)
    warn(message)
  })
}
