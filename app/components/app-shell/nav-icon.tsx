import { AppWindow, Boxes, Eye, HeartPulse, LayoutDashboard, ScrollText, Settings, Siren, Workflow, type LucideIcon } from 'lucide-react'
import type { NavIcon as NavIconName } from '#app/lib/navigation.ts'

const ICONS: Record<NavIconName, LucideIcon> = {
  dashboard: LayoutDashboard,
  health: HeartPulse,
  incidents: Siren,
  catalog: Boxes,
  logs: ScrollText,
  playbooks: Workflow,
  applications: AppWindow,
  view: Eye,
  settings: Settings,
}

export function NavIcon({ name, className }: { name: NavIconName; className?: string }) {
  const Icon = ICONS[name]
  return <Icon aria-hidden="true" className={className} />
}
