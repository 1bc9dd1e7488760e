import type { InputHTMLAttributes } from 'react'
import { cn } from '#app/lib/cn.ts'
import { Input } from './ui/input.tsx'
import { Label } from './ui/label.tsx'

export type ListOfErrors = Array<string | null | undefined> | null | undefined

/** Validation messages, red, announced by screen readers through the field's aria-describedby. */
export function ErrorList({ id, errors, className }: { id?: string; errors?: ListOfErrors; className?: string }) {
  const messages = errors?.filter((message): message is string => Boolean(message))
  if (!messages?.length) return null
  return (
    <ul id={id} className={cn('flex flex-col gap-1 text-sm text-danger', className)}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  )
}

export function Field({
  labelProps,
  inputProps,
  errors,
  className,
}: {
  labelProps: { htmlFor: string; children: string }
  inputProps: InputHTMLAttributes<HTMLInputElement>
  errors?: ListOfErrors
  className?: string
}) {
  const errorId = errors?.length ? `${labelProps.htmlFor}-error` : undefined
  // conform's prop getters include a React `key`, which must not be spread into JSX.
  const { key: _key, ...props } = inputProps as InputHTMLAttributes<HTMLInputElement> & { key?: unknown }
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <Label {...labelProps} />
      <Input id={labelProps.htmlFor} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...props} />
      <ErrorList id={errorId} errors={errors} />
    </div>
  )
}
