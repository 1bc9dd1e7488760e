import { CircleAlert, CircleCheck } from '#app/components/ui/icons.tsx'
import { useEffect, useState } from 'react'
import { cn } from '#app/lib/cn.ts'

/** Spec 002 §9: toasts sit bottom right and last 5000 ms (with JavaScript; otherwise they stay). */
export function Toast({ message, tone = 'success' }: { message: string | null | undefined; tone?: 'success' | 'error' }) {
  const [visible, setVisible] = useState(Boolean(message))
  useEffect(() => {
    setVisible(Boolean(message))
    if (!message) return
    const timer = setTimeout(() => setVisible(false), 5000)
    return () => clearTimeout(timer)
  }, [message])
  if (!message || !visible) return null
  const Icon = tone === 'error' ? CircleAlert : CircleCheck
  return (
    <div
      role="status"
      data-testid="toast"
      className={cn(
        'fixed bottom-4 right-4 z-[60] flex max-w-sm items-center gap-2 rounded-md border bg-card px-4 py-3 text-sm shadow-lg',
        tone === 'error' && 'border-danger/40 text-danger',
      )}
    >
      <Icon aria-hidden="true" className="size-4 shrink-0" />
      {message}
    </div>
  )
}
