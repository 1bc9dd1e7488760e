import { useLocation } from '@remix-run/react'
import { useEffect, useRef, type DetailsHTMLAttributes, type HTMLAttributes, type ReactNode, type RefObject } from 'react'
import { cn } from '#app/lib/cn.ts'

/**
 * With JavaScript, an open <details> menu also closes the way people expect a menu to: on a
 * click outside, on Escape and after navigating. Without it, the summary still toggles it.
 */
export function useDismissableDetails(ref: RefObject<HTMLDetailsElement | null>, isEnabled = true): void {
  const location = useLocation()

  useEffect(() => {
    if (isEnabled && ref.current) ref.current.open = false
  }, [location.key, isEnabled, ref])

  useEffect(() => {
    if (!isEnabled) return
    function handlePointerDown(event: PointerEvent) {
      const details = ref.current
      if (details?.open && event.target instanceof Node && !details.contains(event.target)) details.open = false
    }
    function handleKeyDown(event: KeyboardEvent) {
      const details = ref.current
      if (event.key !== 'Escape' || !details?.open) return
      details.open = false
      details.querySelector('summary')?.focus()
    }
    document.addEventListener('pointerdown', handlePointerDown)
    document.addEventListener('keydown', handleKeyDown)
    return () => {
      document.removeEventListener('pointerdown', handlePointerDown)
      document.removeEventListener('keydown', handleKeyDown)
    }
  }, [isEnabled, ref])
}

/**
 * A menu built on <details>/<summary>: it opens and closes without JavaScript, which keeps
 * every menu of the shell usable before (or without) hydration.
 */
export function DropdownMenu({ className, ...props }: DetailsHTMLAttributes<HTMLDetailsElement>) {
  const ref = useRef<HTMLDetailsElement>(null)
  useDismissableDetails(ref)
  return <details ref={ref} className={cn('group relative', className)} {...props} />
}

export function DropdownMenuTrigger({ className, children, ...props }: HTMLAttributes<HTMLElement> & { children: ReactNode }) {
  return (
    <summary
      className={cn(
        'flex items-center gap-1.5 rounded-md px-2 py-1 text-sm hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
        className,
      )}
      {...props}
    >
      {children}
    </summary>
  )
}

export function DropdownMenuContent({ className, align = 'end', ...props }: HTMLAttributes<HTMLDivElement> & { align?: 'start' | 'end' }) {
  return (
    <div
      className={cn(
        'absolute z-50 mt-1 min-w-48 overflow-hidden rounded-md border bg-popover p-1 text-popover-foreground shadow-md',
        align === 'end' ? 'right-0' : 'left-0',
        className,
      )}
      {...props}
    />
  )
}

export function DropdownMenuLabel({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('px-2 py-1.5 text-sm font-medium', className)} {...props} />
}

export function DropdownMenuSeparator({ className, ...props }: HTMLAttributes<HTMLHRElement>) {
  return <hr className={cn('-mx-1 my-1 border-border', className)} {...props} />
}

/** Shared look for the menu's links and submit buttons. */
export const dropdownMenuItemClassName =
  'flex w-full cursor-pointer select-none items-center gap-2 rounded-sm px-2 py-1.5 text-left text-sm outline-none hover:bg-accent focus-visible:bg-accent focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4'
