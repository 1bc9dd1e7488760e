import { cn } from '#app/lib/cn.ts'

/** A unified diff, each added line green and each removed line red. */
export function DiffView({ diff }: { diff: string }) {
  return (
    <pre className="max-h-96 overflow-auto rounded-md border bg-card p-2 font-mono text-xs leading-5" data-testid="change-diff">
      {diff.split('\n').map((line, index) => (
        <div
          key={index}
          className={cn(
            line.startsWith('+') && !line.startsWith('+++') && 'bg-success-muted text-success',
            line.startsWith('-') && !line.startsWith('---') && 'bg-danger-muted text-danger',
            line.startsWith('@@') && 'text-muted-foreground',
          )}
        >
          {line || ' '}
        </div>
      ))}
    </pre>
  )
}
