/**
 * What an action returned, by shape (resource-specs §2.5 results): an exec's stdout and stderr
 * (and exit code), an HTTP response's status, headers and body, SQL rows as a table, anything
 * else as JSON. Plain markup: the run page renders it on the server.
 */
export function ActionOutput({ result }: { result: unknown }) {
  if (result === null || result === undefined) return null
  if (typeof result !== 'object' || Array.isArray(result)) return <Pre label="Result" text={JSON.stringify(result, null, 2)} />
  const record = result as Record<string, unknown>
  const parts: JSX.Element[] = []
  if ('stdout' in record || 'stderr' in record || 'exitCode' in record) {
    if (typeof record.exitCode === 'number') parts.push(<p key="exit" className="text-xs text-muted-foreground" data-testid="action-exit-code">exit code {record.exitCode}</p>)
    if (text(record.stdout)) parts.push(<Pre key="stdout" label="stdout" text={text(record.stdout)} testId="action-stdout" />)
    if (text(record.stderr)) parts.push(<Pre key="stderr" label="stderr" text={text(record.stderr)} testId="action-stderr" tone="danger" />)
  } else if (Array.isArray(record.rows)) {
    parts.push(<RowsTable key="rows" rows={record.rows} count={typeof record.count === 'number' ? record.count : undefined} />)
  } else if ('code' in record && ('content' in record || 'headers' in record)) {
    parts.push(
      <p key="code" className="text-xs" data-testid="action-http-status">
        HTTP {String(record.code)}
      </p>,
    )
    if (record.headers && typeof record.headers === 'object') parts.push(<Pre key="headers" label="Headers" text={Object.entries(record.headers as Record<string, unknown>).map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`).join('\n')} />)
    if (record.content !== undefined && record.content !== '') parts.push(<Pre key="body" label="Body" text={typeof record.content === 'string' ? record.content : JSON.stringify(record.content, null, 2)} testId="action-http-body" />)
  }
  if (!parts.length) parts.push(<Pre key="json" label="Result" text={JSON.stringify(result, null, 2)} testId="action-result" />)
  return <div className="flex flex-col gap-2">{parts}</div>
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value)
}

function Pre({ label, text: content, testId, tone }: { label: string; text: string; testId?: string; tone?: 'danger' }) {
  return (
    <figure className="flex flex-col gap-1">
      <figcaption className="text-xs font-medium text-muted-foreground">{label}</figcaption>
      <pre className={`max-h-96 overflow-auto whitespace-pre-wrap break-all rounded-md border bg-muted/40 p-2 font-mono text-xs ${tone === 'danger' ? 'text-danger' : ''}`} data-testid={testId}>
        {content}
      </pre>
    </figure>
  )
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

function RowsTable({ rows, count }: { rows: unknown[]; count?: number }) {
  const records = rows.filter((row): row is Record<string, unknown> => Boolean(row) && typeof row === 'object' && !Array.isArray(row))
  const columns = [...new Set(records.flatMap((row) => Object.keys(row)))]
  return (
    <div className="flex flex-col gap-1" data-testid="action-sql-rows">
      <p className="text-xs text-muted-foreground">{count ?? records.length} rows</p>
      {columns.length ? (
        <div className="max-h-96 overflow-auto rounded-md border">
          <table className="w-full text-xs">
            <thead className="bg-muted/60">
              <tr>
                {columns.map((column) => (
                  <th key={column} scope="col" className="px-2 py-1 text-left font-medium">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {records.map((row, index) => (
                <tr key={index} className="border-t">
                  {columns.map((column) => (
                    <td key={column} className="px-2 py-1 font-mono">
                      {cell(row[column])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  )
}
