import { ChevronDown } from '#app/components/ui/icons.tsx'
import type { FilterMap, FilterState } from '#app/lib/filter-string.ts'
import { TriStateToggle } from './tri-state-toggle.tsx'

export type MultiSelectOption = { id: string; label: string }

export type MultiSelectFilterProps = {
  label: string
  options: MultiSelectOption[]
  selected: FilterMap
  hrefFor: (id: string, next: FilterState) => string
  testId?: string
}

/** From four selected entries on, the summary shows a count instead of the names (spec 001 §9). */
export const CONCISE_LABEL_THRESHOLD = 4

export function selectionSummary(options: MultiSelectOption[], selected: FilterMap): string {
  const chosen = options.filter((option) => selected[option.id])
  if (chosen.length === 0) return 'All'
  if (chosen.length >= CONCISE_LABEL_THRESHOLD) return `${chosen.length} selected`
  return chosen.map((option) => `${selected[option.id] === -1 ? '!' : ''}${option.label}`).join(', ')
}

/**
 * A drop-down of include/exclude toggles (spec 002 §2, §4): choosing an item includes it,
 * choosing again clears it. A `<details>` element, so it opens without JavaScript.
 */
export function MultiSelectFilter({ label, options, selected, hrefFor, testId }: MultiSelectFilterProps) {
  const summary = selectionSummary(options, selected)
  const open = options.some((option) => selected[option.id])
  return (
    <details className="group rounded-md border bg-card" data-testid={testId} open={open || undefined}>
      <summary className="flex items-center gap-2 px-2 py-1.5 text-sm">
        <span className="font-medium">{label}</span>
        <span className="min-w-0 flex-1 truncate text-right text-xs text-muted-foreground" data-testid={testId ? `${testId}-summary` : undefined}>
          {summary}
        </span>
        <ChevronDown aria-hidden="true" className="size-4 shrink-0 transition-transform group-open:rotate-180" />
      </summary>
      <ul className="flex max-h-64 flex-col gap-1 overflow-auto border-t p-2">
        {options.map((option) => (
          <li key={option.id}>
            <TriStateToggle label={option.label} state={selected[option.id] ?? 0} hrefFor={(next) => hrefFor(option.id, next)} testId={testId ? `${testId}-${option.label}` : undefined} />
          </li>
        ))}
      </ul>
    </details>
  )
}
