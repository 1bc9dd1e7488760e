import { forwardRef, type InputHTMLAttributes } from 'react'
import { cn } from '#app/lib/cn.ts'

export type InputProps = InputHTMLAttributes<HTMLInputElement> & {
  /** The 2rem height of toolbar and inline inputs instead of 2.25rem. */
  compact?: boolean
}

export const Input = forwardRef<HTMLInputElement, InputProps>(function Input({ className, type, compact, ...props }, ref) {
  return (
    <input
      ref={ref}
      type={type}
      className={cn(
        'flex w-full rounded-md border border-input bg-card px-3 py-1 text-sm shadow-xs transition-colors placeholder:text-muted-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:cursor-not-allowed disabled:opacity-50 read-only:bg-muted/40 read-only:text-muted-foreground aria-[invalid=true]:border-danger aria-[invalid=true]:ring-danger/40',
        compact ? 'h-8' : 'h-9',
        className,
      )}
      {...props}
    />
  )
})
