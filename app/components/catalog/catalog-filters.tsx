import { Form, useSearchParams, useSubmit } from '@remix-run/react'
import { useRef, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Button } from '#app/components/ui/button.tsx'
import { Search } from '#app/components/ui/icons.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'

export const FILTER_SELECT_CLASS = 'h-9 rounded-md border border-input bg-card px-2 text-sm shadow-sm'

export type FilterOption = string | { value: string; label: string }

export type FilterSelectProps = { name: string; label: string; value: string | null | undefined; options: readonly FilterOption[]; allLabel?: string }

/**
 * A catalog screen's filter bar: a GET form over the URL (so it filters without JavaScript, with
 * an Apply button); hydrated, a change submits at once and the search waits for typing to pause.
 * `keep` lists the parameters the form carries over unchanged (type, sort, page size, range…).
 */
export function CatalogFilters({ testId, search, searchPlaceholder, selects, keep, children }: { testId: string; search: string; searchPlaceholder: string; selects: FilterSelectProps[]; keep: readonly string[]; children?: ReactNode }) {
  const [searchParams] = useSearchParams()
  const submit = useSubmit()
  const isHydrated = useHydrated()
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const submitForm = (form: HTMLFormElement, delay: number) => {
    if (timer.current) clearTimeout(timer.current)
    const send = () => submit(form, { preventScrollReset: true, replace: true })
    if (delay === 0) send()
    else timer.current = setTimeout(send, delay)
  }
  return (
    <Form
      method="get"
      className="flex flex-wrap items-end gap-2"
      data-testid={testId}
      onChange={(event) => {
        if (!isHydrated) return
        const name = (event.target as HTMLElement).getAttribute('name')
        submitForm(event.currentTarget, name === 'search' ? 400 : 0)
      }}
    >
      {keep.flatMap((name) => searchParams.getAll(name).map((value, index) => <input key={`${name}-${index}`} type="hidden" name={name} value={value} />))}
      <div className="flex w-64 flex-col gap-1">
        <Label htmlFor={`${testId}-search`}>Search</Label>
        <Input id={`${testId}-search`} name="search" type="search" defaultValue={search} placeholder={searchPlaceholder} data-testid={`${testId}-search`} />
      </div>
      {selects.map((select) => (
        <FilterSelect key={select.name} {...select} testId={testId} />
      ))}
      {children}
      <Button type="submit" variant="outline" size="sm" data-testid={`${testId}-apply`}>
        <Search aria-hidden="true" />
        Apply
      </Button>
    </Form>
  )
}

function FilterSelect({ name, label, value, options, allLabel = 'All', testId }: FilterSelectProps & { testId: string }) {
  const id = `${testId}-${name}`
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor={id}>{label}</Label>
      <select id={id} name={name} defaultValue={value ?? ''} key={value ?? ''} className={FILTER_SELECT_CLASS} data-testid={id}>
        <option value="">{allLabel}</option>
        {options.map((option) => {
          const { value: optionValue, label: optionLabel } = typeof option === 'string' ? { value: option, label: option } : option
          return (
            <option key={optionValue} value={optionValue}>
              {optionLabel}
            </option>
          )
        })}
      </select>
    </div>
  )
}
