import type { SelectHTMLAttributes } from 'react'
import { ErrorList, type ListOfErrors } from '#app/components/forms.tsx'
import { cn } from '#app/lib/cn.ts'
import { SELECT_CLASS } from './incident-fields.tsx'

// Apart from incident-fields.tsx: the incident list and detail pages use its options and class
// but not this field, which would bring the `Field`/`ErrorList` chunk along (decision 016).

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
