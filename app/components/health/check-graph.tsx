import { useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { useDateDisplay } from '#app/components/date-time.tsx'
import { formatDateTime, formatLatency } from '#app/lib/format.ts'
import type { GraphPoint } from './check-detail-model.ts'

const WIDTH = 800
const HEIGHT = 180
const STRIP = 14
const PAD = { left: 48, right: 8, top: 8, bottom: 22 }

/**
 * Latency line over a status strip, drawn on the server as SVG. Every point carries a
 * `<title>` (a native tooltip without JavaScript); once hydrated a richer tooltip follows the
 * pointer.
 */
export function CheckGraph({ points, testId = 'check-graph', now }: { points: GraphPoint[]; testId?: string; now: Date }) {
  const hydrated = useHydrated()
  const [hover, setHover] = useState<number | null>(null)
  const { timeZone } = useDateDisplay().display
  if (points.length === 0) {
    return (
      <p className="py-8 text-center text-sm text-muted-foreground" data-testid={`${testId}-empty`}>
        No data available
      </p>
    )
  }
  const times = points.map((point) => Date.parse(point.time))
  const minT = Math.min(...times)
  const maxT = Math.max(...times, minT + 1)
  const maxD = Math.max(1, ...points.map((point) => point.duration ?? 0))
  const plotW = WIDTH - PAD.left - PAD.right
  const plotH = HEIGHT - PAD.top - PAD.bottom - STRIP - 4
  const x = (time: number) => PAD.left + ((time - minT) / (maxT - minT)) * plotW
  const y = (duration: number) => PAD.top + plotH - (duration / maxD) * plotH
  const barW = Math.max(1, plotW / points.length)
  const line = points.map((point, index) => `${x(times[index]!).toFixed(1)},${y(point.duration ?? 0).toFixed(1)}`).join(' ')
  const describe = (point: GraphPoint) =>
    `${formatDateTime(point.time, 'full', now, timeZone)} · ${point.status ? 'healthy' : 'unhealthy'} · ${formatLatency(point.duration ?? 0)}${point.passed || point.failed ? ` · ${point.passed ?? 0} passed, ${point.failed ?? 0} failed` : ''}`
  const active = hover !== null ? points[hover] : undefined
  return (
    <figure className="relative" data-testid={testId}>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-auto w-full"
        role="img"
        aria-label="Latency and status over the selected range"
        onMouseMove={
          hydrated
            ? (event) => {
                const box = event.currentTarget.getBoundingClientRect()
                const at = ((event.clientX - box.left) / box.width) * WIDTH
                let nearest = 0
                for (let i = 1; i < times.length; i++) if (Math.abs(x(times[i]!) - at) < Math.abs(x(times[nearest]!) - at)) nearest = i
                setHover(nearest)
              }
            : undefined
        }
        onMouseLeave={hydrated ? () => setHover(null) : undefined}
      >
        <text x={4} y={PAD.top + 10} className="fill-muted-foreground text-[10px]">
          {formatLatency(maxD)}
        </text>
        <text x={4} y={PAD.top + plotH} className="fill-muted-foreground text-[10px]">
          0ms
        </text>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} className="stroke-border" />
        <polyline points={line} fill="none" className="stroke-primary" strokeWidth={1.5} data-testid={`${testId}-latency`} />
        {points.map((point, index) => (
          <g key={point.time}>
            <rect
              x={x(times[index]!) - barW / 2}
              y={PAD.top + plotH + 4}
              width={barW}
              height={STRIP}
              className={point.status ? 'fill-success' : 'fill-danger'}
              data-testid={`${testId}-status`}
            />
            <rect x={x(times[index]!) - barW / 2} y={PAD.top} width={barW} height={plotH + STRIP + 4} fill="transparent">
              <title>{describe(point)}</title>
            </rect>
          </g>
        ))}
        <text x={PAD.left} y={HEIGHT - 4} className="fill-muted-foreground text-[10px]">
          {formatDateTime(points[0]!.time, 'medium', now, timeZone)}
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} textAnchor="end" className="fill-muted-foreground text-[10px]">
          {formatDateTime(points[points.length - 1]!.time, 'medium', now, timeZone)}
        </text>
      </svg>
      {active ? (
        <figcaption role="tooltip" data-testid={`${testId}-tooltip`} className="pointer-events-none absolute top-0 rounded-md border bg-popover px-2 py-1 text-xs shadow" style={{ left: `${Math.min(80, (x(times[hover!]!) / WIDTH) * 100)}%` }}>
          {describe(active)}
        </figcaption>
      ) : null}
    </figure>
  )
}
