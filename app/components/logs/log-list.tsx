import type { LogSearchLine } from '#contract/logs/log-search.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { lineMatches, severityVariant } from './log-vocabulary.ts'

/**
 * Search results as one list, newest first. Rows far off screen skip layout and paint
 * (`content-visibility: auto` with an intrinsic height), so thousands of lines scroll smoothly
 * without a virtualising library and the server's HTML stays the whole list (it works without
 * JavaScript and with the browser's find).
 */
export function LogList({ lines, filter, now }: { lines: LogSearchLine[]; filter: string; now: string }) {
  const shown = lines.filter((line) => lineMatches(line, filter))
  return (
    <div className="flex flex-col gap-2">
      <p className="text-sm text-muted-foreground" data-testid="logs-count" aria-live="polite">
        {shown.length === lines.length ? `${lines.length} ${lines.length === 1 ? 'line' : 'lines'}` : `${shown.length} of ${lines.length} lines`}
      </p>
      {shown.length === 0 ? (
        <p className="rounded-md border bg-card p-6 text-center text-sm text-muted-foreground" data-testid="logs-empty">
          No log lines in this range.
        </p>
      ) : (
        <ol className="max-h-[70vh] overflow-auto rounded-md border bg-card font-mono text-xs" data-testid="logs-list">
          {shown.map((line, index) => (
            <li
              key={`${line.backend}-${line.timestamp}-${index}`}
              className="flex items-start gap-3 border-b px-3 py-1.5 last:border-b-0 [contain-intrinsic-size:auto_2rem] [content-visibility:auto]"
              data-testid="log-line"
            >
              <DateTime value={line.timestamp} now={now} className="shrink-0 tabular-nums text-muted-foreground" />
              {/* A fixed width keeps the messages in one column whatever the severity (or none). */}
              {line.severity ? (
                <Badge variant={severityVariant(line.severity)} className="w-16 shrink-0 justify-center uppercase" data-testid="log-severity">
                  {line.severity}
                </Badge>
              ) : (
                <span className="w-16 shrink-0" aria-hidden="true" />
              )}
              <div className="flex min-w-0 flex-1 flex-col gap-1">
                <span className="whitespace-pre-wrap break-words" data-testid="log-message">
                  {line.message}
                  {line.count && line.count > 1 ? <span className="ml-2 text-muted-foreground">×{line.count}</span> : null}
                </span>
                {Object.keys(line.labels).length > 0 ? (
                  <span className="flex flex-wrap gap-1">
                    {Object.entries(line.labels).map(([name, value]) => (
                      <span key={name} className="rounded border px-1 py-0.5 text-muted-foreground" data-testid="log-label">
                        {name}={value}
                      </span>
                    ))}
                  </span>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}
