import type { LabelHTMLAttributes } from 'react'
import { cn } from '#app/lib/cn.ts'

export function Label({ className, ...props }: LabelHTMLAttributes<HTMLLabelElement>) {
  return <label className={cn('text-sm font-medium leading-none', className)} {...props} />
}
