import { useRef, useState } from 'react'
import { cn } from '#app/lib/cn.ts'

export type YamlEditorProps = {
  id: string
  name: string
  defaultValue: string
  readOnly?: boolean
  /** Sent to the browser, so an empty spec is refused before JavaScript loads. */
  required?: boolean
  /** The line a parse error points at; its number is marked in the gutter. */
  errorLine?: number
  errorId?: string
  label: string
  testId?: string
}

function lineCount(text: string): number {
  return Math.max(1, text.split('\n').length)
}

/**
 * A plain textarea with a line-number gutter: errors name lines, so users need to find them.
 * The gutter follows typing and scrolling once JavaScript runs; without it the numbers match
 * the text as the server rendered it.
 */
export function YamlEditor({ id, name, defaultValue, readOnly = false, required, errorLine, errorId, label, testId = 'yaml-editor' }: YamlEditorProps) {
  const [lines, setLines] = useState(() => lineCount(defaultValue))
  const gutter = useRef<HTMLDivElement>(null)
  const rows = Math.min(40, Math.max(16, lineCount(defaultValue) + 2))
  return (
    <div className={cn('flex overflow-hidden rounded-md border bg-background font-mono text-xs leading-5', errorLine && 'border-danger')} data-testid={`${testId}-frame`}>
      <div ref={gutter} aria-hidden="true" className="select-none overflow-hidden border-r bg-muted/40 px-2 py-2 text-right text-muted-foreground" style={{ height: `${rows * 1.25 + 1}rem` }}>
        {Array.from({ length: lines }, (_, index) => (
          <div key={index} className={cn(errorLine === index + 1 && 'font-semibold text-danger')} data-error-line={errorLine === index + 1 ? true : undefined}>
            {index + 1}
          </div>
        ))}
      </div>
      <textarea
        id={id}
        name={name}
        aria-label={label}
        defaultValue={defaultValue}
        readOnly={readOnly}
        required={required || undefined}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        wrap="off"
        rows={rows}
        aria-invalid={errorLine || errorId ? true : undefined}
        aria-describedby={errorId}
        data-testid={testId}
        onInput={(event) => setLines(lineCount(event.currentTarget.value))}
        onScroll={(event) => {
          if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop
        }}
        className={cn('min-w-0 flex-1 resize-y bg-transparent px-3 py-2 outline-none', readOnly && 'cursor-default text-muted-foreground')}
      />
    </div>
  )
}
