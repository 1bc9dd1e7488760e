import { AppWindow, Boxes, Eye, HeartPulse, LayoutDashboard, ScrollText, Settings, Siren, Workflow, type IconComponent } from '#app/components/ui/icons.tsx'
import type { NavIcon as NavIconName } from '#app/lib/navigation.ts'

const ICONS: Record<NavIconName, IconComponent> = {
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
