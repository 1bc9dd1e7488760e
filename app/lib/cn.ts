import { clsx, type ClassValue } from 'clsx'

type ClassCheck = (classes: string) => void
let classCheck: ClassCheck | undefined

/**
 * Registers a check that sees every joined class string. The server's test runs register one
 * that refuses two utilities for the same CSS property (app/lib/class-conflicts.server.ts).
 */
export function checkClassNames(check: ClassCheck | undefined): void {
  classCheck = check
}

/**
 * Joins class names. A caller must not join two utilities for the same property (`p-2` with
 * `p-4`): the stylesheet's order, not the order here, would pick the winner. Resolving such
 * conflicts in the browser would cost a merge library in every page's JavaScript, so they are
 * kept out of the markup instead, and the server's tests look for them on every render.
 */
export function cn(...inputs: ClassValue[]): string {
  const classes = clsx(inputs)
  classCheck?.(classes)
  return classes
}
