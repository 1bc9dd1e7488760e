import { useEffect, useRef, useState } from 'react'

export const ROW_ESTIMATE_PX = 35
export const OVERSCAN_ROWS = 10

/**
 * Virtual rows for the tables (spec 002 §9: row estimate 35 px, overscan 10): only once
 * hydrated and when the table is long enough to be worth it; server-rendered tables show all.
 */
export function useVirtualWindow(rowCount: number, enabled: boolean) {
  const scroller = useRef<HTMLDivElement>(null)
  const [viewport, setViewport] = useState({ top: 0, height: 600 })
  const useVirtual = enabled && rowCount > OVERSCAN_ROWS * 4
  useEffect(() => {
    if (!useVirtual || !scroller.current) return
    const element = scroller.current
    const update = () => setViewport({ top: element.scrollTop, height: element.clientHeight || 600 })
    update()
    element.addEventListener('scroll', update, { passive: true })
    return () => element.removeEventListener('scroll', update)
  }, [useVirtual])
  const first = useVirtual ? Math.max(0, Math.floor(viewport.top / ROW_ESTIMATE_PX) - OVERSCAN_ROWS) : 0
  const last = useVirtual ? Math.min(rowCount, Math.ceil((viewport.top + viewport.height) / ROW_ESTIMATE_PX) + OVERSCAN_ROWS) : rowCount
  return { scroller, useVirtual, first, last }
}
