import { useId, useRef, useState, type KeyboardEvent } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Copy, Eye, EyeOff, ShieldAlert } from '#app/components/ui/icons.tsx'
import { cn } from '#app/lib/cn.ts'
import { buildMcpClientSetups, type McpClientId, type McpClientSetup } from '#app/lib/mcp-clients.ts'
import { Toast } from './toast.tsx'

/** Copies text; the outcome is reported with the spec's clipboard messages. */
export function useCopy(): { copy: (text: string, success?: string) => Promise<void>; message: { text: string; tone: 'success' | 'error' } | null } {
  const [message, setMessage] = useState<{ text: string; tone: 'success' | 'error' } | null>(null)
  return {
    message,
    async copy(text, success = 'Copied to clipboard') {
      if (!navigator.clipboard) {
        setMessage({ text: 'Clipboard not available', tone: 'error' })
        return
      }
      try {
        await navigator.clipboard.writeText(text)
        setMessage({ text: success, tone: 'success' })
      } catch {
        setMessage({ text: 'Failed to copy to clipboard', tone: 'error' })
      }
    },
  }
}

export function maskToken(token: string): string {
  return '•'.repeat(Math.min(token.length, 32))
}

/*
 * Reveal is a plain checkbox styled by CSS (`:checked`, `:has`), so it works the same before
 * hydration and with JavaScript off. The masked and the real text are both in the page and CSS
 * shows one: copying always takes the real token, whatever is on screen.
 */
const SHOWN_WHEN_REVEALED = 'hidden group-has-[.token-reveal-toggle:checked]/token:inline'
const SHOWN_WHEN_MASKED = 'group-has-[.token-reveal-toggle:checked]/token:hidden'

/**
 * The one time a token is shown (spec 002 §2, §4): a security notice, the name, the token masked
 * until revealed with copy, and, for a token that may use MCP (`mcpUrl` given), the client setups
 * as tabs, each masked the same way.
 */
export function TokenCreated({ name, token, mcpUrl }: { name: string; token: string; mcpUrl: string | null }) {
  const hydrated = useHydrated()
  const revealId = useId()
  const { copy, message } = useCopy()
  return (
    <div className="group/token flex flex-col gap-4" data-testid="token-created">
      <Alert variant="warning">
        <ShieldAlert aria-hidden="true" />
        <AlertDescription>Copy this token now. For your security it will not be shown again.</AlertDescription>
      </Alert>
      <p className="text-sm">
        Token <strong data-testid="token-name">{name}</strong>
      </p>
      <div className="flex items-center gap-2">
        <code className="min-w-0 flex-1 break-all rounded-md border bg-muted/40 px-2 py-1 text-sm">
          <span className={SHOWN_WHEN_MASKED} data-testid="token-masked">
            {maskToken(token)}
          </span>
          <span className={cn('select-all', SHOWN_WHEN_REVEALED)} data-testid="token-value">
            {token}
          </span>
        </code>
        <input type="checkbox" id={revealId} className="token-reveal-toggle peer sr-only" data-testid="token-reveal" aria-label="Reveal token" />
        <label
          htmlFor={revealId}
          title="Reveal or hide the token"
          data-testid="token-reveal-button"
          className={cn(buttonVariants({ variant: 'outline', size: 'icon' }), 'cursor-pointer peer-focus-visible:ring-2 peer-focus-visible:ring-ring')}
        >
          <Eye aria-hidden="true" className={SHOWN_WHEN_MASKED} />
          <EyeOff aria-hidden="true" className={SHOWN_WHEN_REVEALED} />
        </label>
        {hydrated ? (
          <button type="button" className={buttonVariants({ variant: 'outline', size: 'icon' })} aria-label="Copy token" data-testid="token-copy" onClick={() => void copy(token, 'Token copied to clipboard')}>
            <Copy aria-hidden="true" />
          </button>
        ) : null}
      </div>
      <div className="flex flex-col gap-2 text-sm">
        <p>
          Use it as <code>Authorization: Bearer &lt;token&gt;</code>, or with basic auth as user <code>token</code> and the token as password.
        </p>
        {mcpUrl ? (
          <McpSetupTabs
            mcpUrl={mcpUrl}
            setups={buildMcpClientSetups(mcpUrl, token)}
            maskedSetups={buildMcpClientSetups(mcpUrl, maskToken(token))}
            hydrated={hydrated}
            onCopy={(setup) => void copy(setup.code, `${setup.label} setup copied to clipboard`)}
          />
        ) : null}
      </div>
      <Toast message={message?.text} tone={message?.tone} />
    </div>
  )
}

const panelId = (id: McpClientId) => `mcp-setup-${id}`
const tabId = (id: McpClientId) => `mcp-setup-${id}-tab`

/**
 * The client setups. Without JavaScript (and before hydration) every panel shows, one below the
 * other, and the tab row is links to them; once the page runs they are WAI-ARIA tabs: one panel
 * at a time, arrow keys, Home and End move between the tabs, and each panel has a copy button.
 */
function McpSetupTabs({
  mcpUrl,
  setups,
  maskedSetups,
  hydrated,
  onCopy,
}: {
  mcpUrl: string
  setups: McpClientSetup[]
  maskedSetups: McpClientSetup[]
  hydrated: boolean
  onCopy: (setup: McpClientSetup) => void
}) {
  const [selected, setSelected] = useState<McpClientId>(setups[0]!.id)
  const tabsRef = useRef<HTMLDivElement>(null)

  function handleTabKey(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const last = setups.length - 1
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key]
    if (next === undefined) return
    event.preventDefault()
    setSelected(setups[next]!.id)
    tabsRef.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[next]?.focus()
  }

  return (
    <section className="flex flex-col gap-2" aria-labelledby="mcp-setup-title" data-testid="mcp-setup">
      <h3 id="mcp-setup-title" className="font-medium">
        MCP client setup
      </h3>
      <p className="text-muted-foreground">
        Endpoint <code data-testid="mcp-endpoint">{mcpUrl}</code> (streamable HTTP).
      </p>
      {hydrated ? (
        <div ref={tabsRef} role="tablist" aria-labelledby="mcp-setup-title" className="flex flex-wrap gap-1 border-b" data-testid="mcp-tabs">
          {setups.map((setup, index) => (
            <button
              key={setup.id}
              type="button"
              role="tab"
              id={tabId(setup.id)}
              aria-selected={selected === setup.id}
              aria-controls={panelId(setup.id)}
              tabIndex={selected === setup.id ? 0 : -1}
              onClick={() => setSelected(setup.id)}
              onKeyDown={(event) => handleTabKey(event, index)}
              data-testid={`mcp-tab-${setup.id}`}
              className={cn(
                '-mb-px border-b-2 px-2 py-1.5 text-xs',
                selected === setup.id ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground',
              )}
            >
              {setup.label}
            </button>
          ))}
        </div>
      ) : (
        <nav aria-labelledby="mcp-setup-title" className="flex flex-wrap gap-1 border-b pb-1" data-testid="mcp-tabs">
          {setups.map((setup) => (
            <a key={setup.id} href={`#${panelId(setup.id)}`} data-testid={`mcp-tab-${setup.id}`} className="rounded-md px-2 py-1 text-xs text-muted-foreground hover:bg-muted hover:text-foreground">
              {setup.label}
            </a>
          ))}
        </nav>
      )}
      {setups.map((setup, index) => {
        const isShown = !hydrated || selected === setup.id
        return (
          <div
            key={setup.id}
            id={panelId(setup.id)}
            role={hydrated ? 'tabpanel' : undefined}
            aria-labelledby={hydrated ? tabId(setup.id) : undefined}
            hidden={!isShown}
            className={isShown ? 'flex scroll-mt-4 flex-col gap-1' : 'hidden'}
            data-testid={`mcp-panel-${setup.id}`}
          >
            {/* Without tabs each panel needs its own title. */}
            {hydrated ? null : <h4 className="pt-1 font-medium">{setup.label}</h4>}
            <p className="text-xs text-muted-foreground" data-testid="mcp-where">
              {setup.where}
            </p>
            <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded bg-muted/40 p-2 text-xs" data-format={setup.format}>
              <span className={SHOWN_WHEN_MASKED} data-testid="mcp-code-masked">
                {maskedSetups[index]?.code ?? ''}
              </span>
              <span className={SHOWN_WHEN_REVEALED} data-testid="mcp-code">
                {setup.code}
              </span>
            </pre>
            {hydrated ? (
              <button type="button" className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'self-end')} onClick={() => onCopy(setup)} data-testid="mcp-copy">
                <Copy aria-hidden="true" />
                Copy {setup.label} setup
              </button>
            ) : null}
          </div>
        )
      })}
    </section>
  )
}
