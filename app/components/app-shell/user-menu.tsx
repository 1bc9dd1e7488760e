import { Form, Link, useLocation, useSearchParams } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { KubeconfigDialog as ServerRenderedKubeconfigDialog } from '#app/components/access/kubeconfig-dialog.tsx'
import { KUBECONFIG_PARAM, useKubeconfigHref } from '#app/components/access/kubeconfig-link.ts'
import { McpSetupDialog as ServerRenderedMcpSetupDialog } from '#app/components/access/mcp-setup-dialog.tsx'
import { MCP_SETUP_PARAM, useMcpSetupHref } from '#app/components/access/mcp-setup-link.ts'
import { Bot, ChevronDown, Download, LogOut, User } from '#app/components/ui/icons.tsx'
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
  dropdownMenuItemClassName,
} from '#app/components/ui/dropdown-menu.tsx'
import { formatVersionLine } from '#app/lib/version.ts'

// The dialogs open from a URL parameter a few times per session: the browser fetches their code
// then; the server renders them in place (no JavaScript needed to see them).
const KubeconfigDialog = import.meta.env.SSR
  ? ServerRenderedKubeconfigDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/kubeconfig-dialog.tsx').then((module) => ({ default: module.KubeconfigDialog })))
const McpSetupDialog = import.meta.env.SSR
  ? ServerRenderedMcpSetupDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/mcp-setup-dialog.tsx').then((module) => ({ default: module.McpSetupDialog })))

export type UserMenuProps = {
  name: string
  email?: string
  frontendVersion: string
  backendVersion: string | null
}

function getInitials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean)
  const initials = parts.length > 1 ? `${parts[0]![0]}${parts[parts.length - 1]![0]}` : (parts[0]?.slice(0, 2) ?? '?')
  return initials.toUpperCase()
}

export function UserMenu({ name, email, frontendVersion, backendVersion }: UserMenuProps) {
  const location = useLocation()
  const [searchParams] = useSearchParams()
  const kubeconfigHref = useKubeconfigHref(true)
  const mcpSetupHref = useMcpSetupHref(true)
  return (
    <>
      <DropdownMenu data-testid="user-menu">
        <DropdownMenuTrigger aria-label={`User menu for ${name}`}>
          <span aria-hidden="true" className="flex size-7 items-center justify-center rounded-full bg-secondary text-xs font-semibold text-secondary-foreground">
            {getInitials(name)}
          </span>
          <span className="max-w-40 truncate max-md:sr-only">{name}</span>
          <ChevronDown aria-hidden="true" className="size-3.5 text-muted-foreground" />
        </DropdownMenuTrigger>
        <DropdownMenuContent className="w-64">
          <DropdownMenuLabel>
            <span className="block truncate">Hi {name}</span>
            {email ? <span className="block truncate text-xs font-normal text-muted-foreground">{email}</span> : null}
          </DropdownMenuLabel>
          <DropdownMenuSeparator />
          <Link to="/profile-settings" className={dropdownMenuItemClassName}>
            <User aria-hidden="true" />
            Your Profile
          </Link>
          {/* Dialogs kept in the URL, so they open without JavaScript too (spec 002 §2). */}
          <Link to={kubeconfigHref} preventScrollReset data-testid="download-kubeconfig" className={dropdownMenuItemClassName}>
            <Download aria-hidden="true" />
            Download kubeconfig
          </Link>
          <Link to={mcpSetupHref} preventScrollReset data-testid="setup-mcp" className={dropdownMenuItemClassName}>
            <Bot aria-hidden="true" />
            Setup MCP
          </Link>
          <DropdownMenuSeparator />
          <p data-testid="version-line" className="px-2 py-1 text-xs text-muted-foreground">
            {formatVersionLine(frontendVersion, backendVersion)}
          </p>
          <DropdownMenuSeparator />
          <Form method="post" action="/logout">
            <input type="hidden" name="returnTo" value={`${location.pathname}${location.search}`} />
            <button type="submit" data-testid="sign-out" className={dropdownMenuItemClassName}>
              <LogOut aria-hidden="true" />
              Sign out
            </button>
          </Form>
        </DropdownMenuContent>
      </DropdownMenu>
      <Suspense fallback={null}>{searchParams.has(KUBECONFIG_PARAM) ? <KubeconfigDialog /> : null}</Suspense>
      <Suspense fallback={null}>{searchParams.has(MCP_SETUP_PARAM) ? <McpSetupDialog /> : null}</Suspense>
    </>
  )
}
