import type { SelectHTMLAttributes } from 'react'
import { ErrorList } from '#app/components/forms.tsx'
import { cn } from '#app/lib/cn.ts'
import { INCIDENT_SEVERITY_OPTIONS, INCIDENT_TYPES, labelOf } from '#app/lib/incidents.ts'

export const SELECT_CLASS = 'h-9 rounded-md border border-input bg-card px-2 text-sm shadow-sm'

/** A labelled native select with its error: native so it works the same with JavaScript off. */
export function SelectField({
  id,
  label,
  options,
  error,
  placeholder,
  className,
  ...props
}: {
  id: string
  label: string
  options: ReadonlyArray<{ value: string; label: string }>
  error?: string
  placeholder?: string
  className?: string
} & SelectHTMLAttributes<HTMLSelectElement>) {
  const errorId = error ? `${id}-error` : undefined
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <select id={id} className={SELECT_CLASS} aria-invalid={error ? true : undefined} aria-describedby={errorId} {...props}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <ErrorList id={errorId} errors={[error]} />
    </div>
  )
}

export const TYPE_OPTIONS = INCIDENT_TYPES.map((value) => ({ value, label: labelOf(value) }))
export const SEVERITY_OPTIONS = INCIDENT_SEVERITY_OPTIONS.map((option) => ({ value: option.value, label: option.label }))
