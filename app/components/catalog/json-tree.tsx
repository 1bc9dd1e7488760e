import type { ReactNode } from 'react'

/**
 * A scraped document as a collapsible tree (the item's Spec tab): every object and array is a
 * `<details>`, so it folds without JavaScript. The first two levels start open; deeper ones
 * closed, which keeps a large document readable at first sight.
 */
export function JsonTree({ value, openDepth = 2 }: { value: unknown; openDepth?: number }) {
  return (
    <div className="overflow-x-auto rounded-md border bg-card p-3 font-mono text-xs leading-5" data-testid="config-json">
      <JsonNode value={value} depth={0} openDepth={openDepth} />
    </div>
  )
}

function Scalar({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-muted-foreground">null</span>
  if (typeof value === 'string') return <span className="whitespace-pre-wrap break-all text-success">{JSON.stringify(value)}</span>
  if (typeof value === 'number' || typeof value === 'bigint') return <span className="text-primary">{String(value)}</span>
  if (typeof value === 'boolean') return <span className="text-warning">{String(value)}</span>
  return <span>{JSON.stringify(value)}</span>
}

function JsonNode({ name, value, depth, openDepth, last = true }: { name?: ReactNode; value: unknown; depth: number; openDepth: number; last?: boolean }) {
  const key = name !== undefined ? <span className="text-muted-foreground">{name}: </span> : null
  const comma = last ? '' : ','
  if (value === null || typeof value !== 'object') {
    return (
      <div>
        {key}
        <Scalar value={value} />
        {comma}
      </div>
    )
  }
  const isArray = Array.isArray(value)
  const entries: Array<[string, unknown]> = isArray ? (value as unknown[]).map((item, index) => [String(index), item]) : Object.entries(value as Record<string, unknown>)
  const [open, close] = isArray ? ['[', ']'] : ['{', '}']
  if (entries.length === 0) {
    return (
      <div>
        {key}
        {open}
        {close}
        {comma}
      </div>
    )
  }
  return (
    <details open={depth < openDepth || undefined}>
      <summary className="cursor-pointer list-none hover:bg-muted">
        {key}
        {open}
        <span className="text-muted-foreground [details[open]>summary>&]:hidden">
          {' '}
          … {entries.length} {isArray ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'} {close}
          {comma}
        </span>
      </summary>
      <div className="border-l pl-4">
        {entries.map(([entryKey, entryValue], index) => (
          <JsonNode key={entryKey} name={isArray ? undefined : JSON.stringify(entryKey)} value={entryValue} depth={depth + 1} openDepth={openDepth} last={index === entries.length - 1} />
        ))}
      </div>
      <div className="hidden [details[open]>&]:block">
        {close}
        {comma}
      </div>
    </details>
  )
}
