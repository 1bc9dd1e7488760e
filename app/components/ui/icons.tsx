import type { SVGProps } from 'react'
import spriteUrl from '#app/assets/icons.svg?url'
import type { IconName } from './icon-names.ts'

export type IconProps = Omit<SVGProps<SVGSVGElement>, 'children' | 'name'>
export type IconComponent = (props: IconProps) => JSX.Element

/**
 * A lucide icon drawn from the sprite (app/assets/icons.svg) rather than from JavaScript: the
 * drawings are one cached file instead of part of every page's bundle. Decorative unless given
 * an aria-label, as lucide-react's own components are.
 *
 * Size (24 px unless a utility such as `size-4` says otherwise), stroke and fill come from the
 * `icon` class in app/styles/tailwind.css and the viewBox from the sprite's <symbol>, not from
 * attributes: a page draws dozens of icons, and the eight attributes lucide puts on each were
 * some 180 bytes of HTML per icon (decision 014).
 */
export function Icon({ name, className, ...props }: IconProps & { name: IconName }) {
  const labelled = props['aria-label'] !== undefined
  return (
    <svg aria-hidden={labelled ? undefined : true} role={labelled ? 'img' : undefined} className={className ? `icon ${className}` : 'icon'} {...props}>
      <use href={`${spriteUrl}#${name}`} />
    </svg>
  )
}

function icon(name: IconName): IconComponent {
  const component = (props: IconProps) => <Icon name={name} {...props} />
  component.displayName = name
  return component
}

export const Activity = icon('Activity')
export const AppWindow = icon('AppWindow')
export const ArrowDown = icon('ArrowDown')
export const ArrowUp = icon('ArrowUp')
export const ArrowUpDown = icon('ArrowUpDown')
export const Ban = icon('Ban')
export const Bell = icon('Bell')
export const Bot = icon('Bot')
export const Boxes = icon('Boxes')
export const CalendarClock = icon('CalendarClock')
export const CheckCircle2 = icon('CheckCircle2')
export const ChevronDown = icon('ChevronDown')
export const ChevronRight = icon('ChevronRight')
export const Circle = icon('Circle')
export const CircleAlert = icon('CircleAlert')
export const CircleCheck = icon('CircleCheck')
export const Construction = icon('Construction')
export const Copy = icon('Copy')
export const Download = icon('Download')
export const Eye = icon('Eye')
export const EyeOff = icon('EyeOff')
export const Filter = icon('Filter')
export const Flag = icon('Flag')
export const HeartPulse = icon('HeartPulse')
export const Hourglass = icon('Hourglass')
export const Info = icon('Info')
export const LayoutDashboard = icon('LayoutDashboard')
export const LayoutGrid = icon('LayoutGrid')
export const Lock = icon('Lock')
export const LogOut = icon('LogOut')
export const Maximize2 = icon('Maximize2')
export const Minimize2 = icon('Minimize2')
export const Minus = icon('Minus')
export const PanelLeftClose = icon('PanelLeftClose')
export const PanelLeftOpen = icon('PanelLeftOpen')
export const Paperclip = icon('Paperclip')
export const Pencil = icon('Pencil')
export const Play = icon('Play')
export const Plus = icon('Plus')
export const PowerOff = icon('PowerOff')
export const Radar = icon('Radar')
export const RefreshCw = icon('RefreshCw')
export const ScrollText = icon('ScrollText')
export const Search = icon('Search')
export const SearchX = icon('SearchX')
export const Settings = icon('Settings')
export const ShieldAlert = icon('ShieldAlert')
export const Siren = icon('Siren')
export const Table2 = icon('Table2')
export const Trash2 = icon('Trash2')
export const User = icon('User')
export const UserPlus = icon('UserPlus')
export const Workflow = icon('Workflow')
export const X = icon('X')
