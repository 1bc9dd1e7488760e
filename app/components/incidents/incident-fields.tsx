import type { SelectHTMLAttributes } from 'react'
import { ErrorList, type ListOfErrors } from '#app/components/forms.tsx'
import { cn } from '#app/lib/cn.ts'
import { INCIDENT_SEVERITY_OPTIONS, INCIDENT_TYPES, labelOf } from '#app/lib/incidents.ts'

export const SELECT_CLASS = 'h-9 rounded-md border border-input bg-card px-2 text-sm shadow-sm'

/**
 * A labelled native select with its errors: native so it works the same with JavaScript off.
 * Takes conform's `getSelectProps` (id, name, required, defaultValue, aria attributes).
 */
export function SelectField({
  label,
  options,
  errors,
  placeholder,
  className,
  ...selectProps
}: {
  id: string
  label: string
  options: ReadonlyArray<{ value: string; label: string }>
  errors?: ListOfErrors
  placeholder?: string
  className?: string
} & SelectHTMLAttributes<HTMLSelectElement>) {
  // conform's prop getters include a React `key`, which must not be spread into JSX.
  const { key: _key, ...props } = selectProps as typeof selectProps & { key?: unknown }
  const errorId = errors?.length ? `${props.id}-error` : undefined
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <label htmlFor={props.id} className="text-sm font-medium">
        {label}
      </label>
      <select className={SELECT_CLASS} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...props}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <ErrorList id={errorId} errors={errors} />
    </div>
  )
}

export const TYPE_OPTIONS = INCIDENT_TYPES.map((value) => ({ value, label: labelOf(value) }))
export const SEVERITY_OPTIONS = INCIDENT_SEVERITY_OPTIONS.map((option) => ({ value: option.value, label: option.label }))
