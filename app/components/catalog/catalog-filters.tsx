import { Form, useLocation, useSubmit } from '@remix-run/react'
import { useRef, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { HiddenParams } from '#app/components/data-table/hidden-params.tsx'
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
 * Every other parameter of the URL (type, sort, page size, time range…) is carried over as it is;
 * paging restarts.
 */
export function CatalogFilters({ testId, search, searchPlaceholder, selects, children }: { testId: string; search: string; searchPlaceholder: string; selects: FilterSelectProps[]; children?: ReactNode }) {
  const location = useLocation()
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
      <HiddenParams search={location.search} exclude={['page', 'search', ...selects.map((select) => select.name)]} />
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
