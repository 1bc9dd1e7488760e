import { formatDuration, formatSize } from '#contract/canary/duration.ts'
import type { ViewPanelInfo } from '#app/lib/views.server.ts'

/**
 * A custom view's panels as plain SVG and HTML rendered on the server: no chart library, one
 * small drawing per panel type of the reference (piechart, number, gauge, bargauge, table, text,
 * duration, properties, timeseries, heatmap).
 */

const PALETTE = ['#2563eb', '#16a34a', '#f59e0b', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#9ca3af']
const NAMED: Record<string, string> = { healthy: '#16a34a', unhealthy: '#dc2626', warning: '#f59e0b', unknown: '#9ca3af', error: '#dc2626', info: '#2563eb' }

const colorOf = (label: string, index: number) => NAMED[label.toLowerCase()] ?? PALETTE[index % PALETTE.length]!

type Row = Record<string, unknown>

function numeric(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return null
}

/** The row's label (first non-numeric field) and value (`value`, `count`, else the first number). */
function labelValue(row: Row): { label: string; value: number } {
  const entries = Object.entries(row)
  const valueKey = 'value' in row ? 'value' : 'count' in row ? 'count' : entries.find(([, value]) => numeric(value) !== null)?.[0]
  const labelEntry = entries.find(([key, value]) => key !== valueKey && numeric(value) === null)
  return { label: labelEntry ? String(labelEntry[1] ?? '') : '', value: valueKey ? (numeric(row[valueKey]) ?? 0) : 0 }
}

function firstValue(rows: Row[]): number | null {
  const row = rows[0]
  if (!row) return null
  return numeric(row.value) ?? numeric(row.count) ?? Object.values(row).map(numeric).find((value) => value !== null) ?? null
}

const formatNumber = (value: number) => (Number.isInteger(value) ? value.toLocaleString('en') : value.toLocaleString('en', { maximumFractionDigits: 2 }))

function PieChart({ rows }: { rows: Row[] }) {
  const slices = rows.map(labelValue).filter((slice) => slice.value > 0)
  const total = slices.reduce((sum, slice) => sum + slice.value, 0)
  if (total === 0) return <Empty />
  let angle = -Math.PI / 2
  return (
    <div className="flex items-center gap-4">
      <svg viewBox="-1 -1 2 2" width="112" height="112" role="img" aria-label={slices.map((slice) => `${slice.label}: ${slice.value}`).join(', ')}>
        {slices.map((slice, index) => {
          const sweep = (slice.value / total) * Math.PI * 2
          const start = angle
          angle += sweep
          if (slices.length === 1) return <circle key={slice.label} r="1" fill={colorOf(slice.label, index)} />
          const [x1, y1, x2, y2] = [Math.cos(start), Math.sin(start), Math.cos(angle), Math.sin(angle)]
          return <path key={`${slice.label}-${index}`} d={`M0 0 L${x1.toFixed(4)} ${y1.toFixed(4)} A1 1 0 ${sweep > Math.PI ? 1 : 0} 1 ${x2.toFixed(4)} ${y2.toFixed(4)} Z`} fill={colorOf(slice.label, index)} />
        })}
        <circle r="0.55" className="fill-card" />
      </svg>
      <ul className="flex flex-col gap-1 text-sm">
        {slices.map((slice, index) => (
          <li key={`${slice.label}-${index}`} className="flex items-center gap-2">
            <span className="inline-block size-2.5 rounded-sm" style={{ background: colorOf(slice.label, index) }} aria-hidden />
            <span>{slice.label || '—'}</span>
            <span className="tabular-nums text-muted-foreground">{formatNumber(slice.value)}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}

function Gauge({ panel }: { panel: ViewPanelInfo }) {
  const value = firstValue(panel.rows)
  if (value === null) return <Empty />
  const min = numeric(panel.gauge?.min) ?? 0
  const max = numeric(panel.gauge?.max) ?? 100
  const ratio = Math.min(1, Math.max(0, (value - min) / (max - min || 1)))
  const end = Math.PI * (1 - ratio)
  const color = ratio > 0.85 ? '#dc2626' : ratio > 0.7 ? '#f59e0b' : '#16a34a'
  return (
    <svg viewBox="0 0 120 70" width="160" height="94" role="img" aria-label={`${formatNumber(value)} of ${formatNumber(max)}`}>
      <path d="M10 60 A50 50 0 0 1 110 60" fill="none" stroke="currentColor" strokeOpacity="0.15" strokeWidth="10" />
      {ratio > 0 ? <path d={`M10 60 A50 50 0 0 1 ${(60 + 50 * Math.cos(end)).toFixed(2)} ${(60 - 50 * Math.sin(end)).toFixed(2)}`} fill="none" stroke={color} strokeWidth="10" /> : null}
      <text x="60" y="58" textAnchor="middle" className="fill-foreground text-[16px] font-semibold">
        {formatNumber(value)}
        {panel.gauge?.unit ?? ''}
      </text>
    </svg>
  )
}

function BarGauge({ panel }: { panel: ViewPanelInfo }) {
  const bars = panel.rows.map(labelValue)
  if (bars.length === 0) return <Empty />
  const max = panel.bargauge?.max ?? Math.max(...bars.map((bar) => bar.value), 1)
  return (
    <svg viewBox={`0 0 300 ${bars.length * 22}`} width="100%" height={bars.length * 22} role="img" aria-label={bars.map((bar) => `${bar.label}: ${bar.value}`).join(', ')}>
      {bars.map((bar, index) => (
        <g key={`${bar.label}-${index}`} transform={`translate(0 ${index * 22})`}>
          <text x="0" y="14" className="fill-foreground text-[11px]">{bar.label.slice(0, 18)}</text>
          <rect x="110" y="4" width="150" height="12" rx="2" fill="currentColor" fillOpacity="0.1" />
          <rect x="110" y="4" width={Math.max(0, Math.min(150, (bar.value / max) * 150))} height="12" rx="2" fill={colorOf(bar.label, index)} />
          <text x="266" y="14" className="fill-foreground text-[11px] tabular-nums">{formatNumber(bar.value)}</text>
        </g>
      ))}
    </svg>
  )
}

const TIME_KEYS = ['timestamp', 'time', 'ts', 'date', 'bucket', 'created_at']

/** Lines per series over time: rows of a time field, `value` and optionally a series label. */
function TimeSeries({ rows }: { rows: Row[] }) {
  const timeKey = TIME_KEYS.find((key) => rows.some((row) => key in row))
  if (!timeKey) return <Empty />
  const points = rows
    .map((row) => {
      const { value } = labelValue(Object.fromEntries(Object.entries(row).filter(([key]) => key !== timeKey)))
      const series = Object.entries(row).find(([key, item]) => key !== timeKey && key !== 'value' && numeric(item) === null)
      return { t: Date.parse(String(row[timeKey])), value, series: series ? String(series[1]) : '' }
    })
    .filter((point) => !Number.isNaN(point.t))
  if (points.length === 0) return <Empty />
  const [t0, t1] = [Math.min(...points.map((p) => p.t)), Math.max(...points.map((p) => p.t))]
  const vMax = Math.max(...points.map((p) => p.value), 1)
  const groups = new Map<string, typeof points>()
  for (const point of points) groups.set(point.series, [...(groups.get(point.series) ?? []), point])
  const x = (t: number) => 30 + ((t - t0) / (t1 - t0 || 1)) * 260
  const y = (v: number) => 90 - (v / vMax) * 80
  return (
    <svg viewBox="0 0 300 100" width="100%" height="120" role="img" aria-label={`${groups.size} series over time`}>
      <line x1="30" y1="90" x2="290" y2="90" stroke="currentColor" strokeOpacity="0.2" />
      <text x="0" y="14" className="fill-muted-foreground text-[9px]">{formatNumber(vMax)}</text>
      {[...groups.entries()].map(([series, list], index) => (
        <polyline key={series || index} fill="none" stroke={colorOf(series, index)} strokeWidth="1.5" points={list.sort((a, b) => a.t - b.t).map((p) => `${x(p.t).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ')}>
          <title>{series || 'value'}</title>
        </polyline>
      ))}
    </svg>
  )
}

/** Cells of x × y shaded by value: rows of two labels (or a time) and a number. */
function Heatmap({ rows }: { rows: Row[] }) {
  const cells = rows.map((row) => {
    const labels = Object.entries(row).filter(([key, item]) => key !== 'value' && key !== 'count' && numeric(item) === null)
    return { x: String(labels[0]?.[1] ?? ''), y: String(labels[1]?.[1] ?? ''), value: labelValue(row).value }
  })
  if (cells.length === 0) return <Empty />
  const xs = [...new Set(cells.map((cell) => cell.x))].slice(0, 40)
  const ys = [...new Set(cells.map((cell) => cell.y))].slice(0, 12)
  const max = Math.max(...cells.map((cell) => cell.value), 1)
  const size = 14
  return (
    <svg viewBox={`0 0 ${80 + xs.length * size} ${ys.length * size}`} width="100%" height={ys.length * size + 4} role="img" aria-label={`heatmap of ${cells.length} cells`}>
      {ys.map((label, row) => (
        <text key={label} x="0" y={row * size + 10} className="fill-foreground text-[9px]">{label.slice(0, 14)}</text>
      ))}
      {cells.map((cell, index) => {
        const column = xs.indexOf(cell.x)
        const row = ys.indexOf(cell.y)
        if (column < 0 || row < 0) return null
        return (
          <rect key={index} x={80 + column * size} y={row * size} width={size - 2} height={size - 2} rx="2" fill="#2563eb" fillOpacity={0.1 + 0.9 * (cell.value / max)}>
            <title>{`${cell.y} ${cell.x}: ${cell.value}`}</title>
          </rect>
        )
      })}
    </svg>
  )
}

function PanelTable({ rows }: { rows: Row[] }) {
  if (rows.length === 0) return <Empty />
  const keys = Object.keys(rows[0]!)
  return (
    <table className="w-full text-sm">
      <thead>
        <tr>{keys.map((key) => <th key={key} className="py-1 pr-3 text-left font-medium text-muted-foreground">{key}</th>)}</tr>
      </thead>
      <tbody>
        {rows.slice(0, 50).map((row, index) => (
          <tr key={index} className="border-t">{keys.map((key) => <td key={key} className="py-1 pr-3">{text(row[key])}</td>)}</tr>
        ))}
      </tbody>
    </table>
  )
}

function Properties({ rows }: { rows: Row[] }) {
  const pairs: [string, unknown][] = rows.length === 1 ? Object.entries(rows[0]!) : rows.map((row) => [String(row.label ?? row.name ?? row.key ?? ''), row.value])
  if (pairs.length === 0) return <Empty />
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
      {pairs.map(([key, value]) => (
        <div key={key} className="contents">
          <dt className="text-muted-foreground">{key}</dt>
          <dd>{text(value)}</dd>
        </div>
      ))}
    </dl>
  )
}

function text(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

function Empty() {
  return <p className="text-sm text-muted-foreground">No data</p>
}

function PanelBody({ panel }: { panel: ViewPanelInfo }) {
  switch (panel.type) {
    case 'piechart':
      return <PieChart rows={panel.rows} />
    case 'gauge':
      return <Gauge panel={panel} />
    case 'bargauge':
      return <BarGauge panel={panel} />
    case 'timeseries':
      return <TimeSeries rows={panel.rows} />
    case 'heatmap':
      return <Heatmap rows={panel.rows} />
    case 'table':
      return <PanelTable rows={panel.rows} />
    case 'properties':
      return <Properties rows={panel.rows} />
    case 'text':
      return <p className="whitespace-pre-wrap text-sm">{text(panel.rows[0] ? (panel.rows[0].value ?? panel.rows[0].text ?? Object.values(panel.rows[0])[0]) : '')}</p>
    case 'duration': {
      const value = firstValue(panel.rows)
      // Durations are nanoseconds, as the reference's Go durations are.
      return value === null ? <Empty /> : <p className="text-3xl font-semibold tabular-nums">{formatDuration(value / 1e6)}</p>
    }
    case 'number':
    default: {
      const value = firstValue(panel.rows)
      const unit = panel.number?.unit
      return value === null ? <Empty /> : <p className="text-3xl font-semibold tabular-nums">{unit === 'bytes' ? formatSize(value) : `${formatNumber(value)}${unit ? ` ${unit}` : ''}`}</p>
    }
  }
}

export function ViewPanels({ panels }: { panels: ViewPanelInfo[] }) {
  if (panels.length === 0) return null
  return (
    <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4" aria-label="Panels">
      {panels.map((panel) => (
        <li key={panel.name} className="flex flex-col gap-2 rounded-md border bg-card p-4" data-testid="view-panel" data-panel-type={panel.type}>
          <h3 className="text-sm font-medium" title={panel.description}>{panel.name}</h3>
          <PanelBody panel={panel} />
        </li>
      ))}
    </ul>
  )
}
