/**
 * The icons the console uses, by their lucide names. Each is a symbol of the sprite
 * app/assets/icons.svg, written by `npm run icons` (scripts/icon-sprite.ts) from lucide's own
 * drawings; adding a name here and running it makes the icon available in icons.tsx.
 */
export const ICON_NAMES = [
  'Activity', 'AppWindow', 'ArrowDown', 'ArrowUp', 'ArrowUpDown', 'Ban', 'Bell', 'Bot', 'Boxes', 'CalendarClock',
  'CheckCircle2', 'ChevronDown', 'ChevronRight', 'Circle', 'CircleAlert', 'CircleCheck', 'Construction', 'Copy',
  'Download', 'Eye', 'EyeOff', 'Filter', 'Flag', 'HeartPulse', 'Hourglass', 'Info', 'LayoutDashboard', 'LayoutGrid',
  'Lock', 'LogOut', 'Maximize2', 'Minimize2', 'Minus', 'PanelLeftClose', 'PanelLeftOpen', 'Paperclip', 'Pencil',
  'Play', 'Plus', 'PowerOff', 'Radar', 'RefreshCw', 'ScrollText', 'Search', 'SearchX', 'Settings', 'ShieldAlert',
  'Siren', 'Table2', 'Trash2', 'User', 'UserPlus', 'Workflow', 'X',
] as const

export type IconName = (typeof ICON_NAMES)[number]
